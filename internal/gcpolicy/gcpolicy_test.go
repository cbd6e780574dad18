package gcpolicy

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// inChild runs the calling test again in a process of its own, with env
// added: the collector's settings are the whole process's. It reports
// whether this is the child, which then runs the body.
func inChild(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Getenv("GCPOLICY_CHILD") == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), append(env, "GCPOLICY_CHILD="+t.Name())...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
	return false
}

// churn keeps live bytes reachable while it allocates garbage bytes in
// 64 KiB pieces, and returns how many collections ran meanwhile.
func churn(live, garbage int) uint32 {
	hold := make([][]byte, 0, live>>16)
	for range live >> 16 {
		hold = append(hold, make([]byte, 64<<10))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var sink []byte
	for range garbage >> 16 {
		sink = make([]byte, 64<<10)
		sink[0] = 1
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(hold)
	return after.NumGC - before.NumGC
}

// A live heap above the starting limit does not make the collector run
// without end: the limit follows the heap. The same churn under a fixed
// limit of that size (the policy before issue 37) collects dozens of
// times; under this one, a handful.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	if !inChild(t, "GOGC=", "GOMEMLIMIT=") {
		return
	}
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	const base = 2 << 20
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(base)
	fixed := churn(16<<20, 64<<20)
	runtime.GC()
	Start(base)
	// Twice the live heap in garbage: after the first collection raises
	// the limit, GOGC=100's pace would collect twice more.
	adaptive := churn(16<<20, 32<<20)
	t.Logf("collections: fixed %d MiB limit %d, this policy %d (limit now %d MiB)", base>>20, fixed, adaptive, Limit()>>20)
	if fixed < 20 {
		t.Fatalf("a fixed limit under the live heap collected only %d times: the test no longer shows the thrash", fixed)
	}
	if adaptive > 5 {
		t.Fatalf("%d collections with the limit following the live heap, want a handful", adaptive)
	}
	if Limit() < 32<<20 {
		t.Fatalf("limit %d after a 16 MiB live heap, want at least twice it", Limit())
	}
}

// Expect raises the limit to the base plus twice what the caller will
// hold, and never lowers it.
func TestExpect(t *testing.T) {
	if !inChild(t, "GOGC=", "GOMEMLIMIT=") {
		return
	}
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	Start(4 << 20)
	if got := debug.SetMemoryLimit(-1); got != 4<<20 {
		t.Fatalf("limit after Start %d, want %d", got, 4<<20)
	}
	Expect(10 << 20)
	if got := debug.SetMemoryLimit(-1); got != 24<<20 || Limit() != 24<<20 {
		t.Fatalf("limit after Expect(10 MiB) %d (Limit %d), want %d", got, Limit(), 24<<20)
	}
	Expect(1 << 20)
	if got := debug.SetMemoryLimit(-1); got != 24<<20 {
		t.Fatalf("a smaller Expect lowered the limit to %d", got)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GOGC %d, want the proportional collector off", got)
	}
}

// GOGC or GOMEMLIMIT in the environment win: Start leaves the runtime's
// settings as they were and Expect does nothing.
func TestEnvironmentWins(t *testing.T) {
	for _, env := range []string{"GOGC=50", "GOMEMLIMIT=100MiB"} {
		t.Run(strings.Split(env, "=")[0], func(t *testing.T) {
			if !inChild(t, env) {
				return
			}
			gogc := debug.SetGCPercent(-1)
			debug.SetGCPercent(gogc)
			memlimit := debug.SetMemoryLimit(-1)
			Start(4 << 20)
			Expect(100 << 20)
			if got := debug.SetGCPercent(gogc); got != gogc {
				t.Fatalf("GOGC %d after Start, want the environment's %d", got, gogc)
			}
			if got := debug.SetMemoryLimit(-1); got != memlimit {
				t.Fatalf("memory limit %d after Start, want the environment's %d", got, memlimit)
			}
			if Limit() != 0 {
				t.Fatalf("Limit %d, want 0 (not active)", Limit())
			}
			if env == "GOGC=50" && gogc != 50 {
				t.Fatalf("GOGC=50 read as %s", strconv.Itoa(gogc))
			}
		})
	}
}
