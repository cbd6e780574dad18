package proc

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_EXIT") != "" {
		os.Exit(0)
	}
	if os.Getenv("PROC_TEST_SLEEP") != "" {
		// Alive until the test closes stdin.
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// This process is alive; a child that has exited and been reaped is not;
// ids that no process can have are not.
func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_TEST_EXIT=1")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Fatalf("exited child %d is alive", cmd.Process.Pid)
	}
	for _, pid := range []int{0, -1} {
		if Alive(pid) {
			t.Fatalf("pid %d is alive", pid)
		}
	}
}

// This process started before now and not long before the test began; a
// child started later has a later start; ids no process can have have
// none. (On systems that cannot say, StartTime reports so and lock
// judgement falls back to liveness alone.)
func TestStartTime(t *testing.T) {
	before := time.Now()
	me, ok := StartTime(os.Getpid())
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
			t.Fatal("no start time for this process")
		}
		t.Logf("%s cannot tell a process's start time", runtime.GOOS)
		return
	}
	// Tick and boot-time rounding: a second either way.
	if me.After(before.Add(time.Second)) || before.Sub(me) > 10*time.Minute {
		t.Fatalf("this process started at %v, the test at %v", me, before)
	}
	time.Sleep(1100 * time.Millisecond)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_TEST_SLEEP=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child, ok := StartTime(cmd.Process.Pid)
	stdin.Close()
	cmd.Wait()
	if !ok || !child.After(me) {
		t.Fatalf("child started at %v (%v), this process at %v", child, ok, me)
	}
	for _, pid := range []int{0, -1} {
		if _, ok := StartTime(pid); ok {
			t.Fatalf("pid %d has a start time", pid)
		}
	}
}
