package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Issue 24 item 2: git gc --prune=now removes every unreachable object
// whatever its age, so a checkpoint's objects written just before its ref
// moves can go. Sixteen sessions' hooks and checkpoints run beside a loop
// of git gc --prune=now: a raced checkpoint may be lost, and is then
// reported; no session is (docs/design.md, "Checkpoints beside git gc").
func TestGCPruneNowLosesNoSession(t *testing.T) {
	if os.Getenv("CTXGIT_GC_RACE") == "" {
		t.Skip("set CTXGIT_GC_RACE=1 (.ci/run does): 16 sessions beside git gc take 10-30 s")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// A small repository: gc then runs many times beside the hooks.
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "base")
	mustRun(t, ctxgitCmd(dir, "init"))
	var done atomic.Bool
	gcs := 0
	var gcWG sync.WaitGroup
	gcWG.Add(1)
	go func() {
		defer gcWG.Done()
		for i := 0; i < 200 && !done.Load(); i++ {
			cmd := exec.Command("git", "gc", "-q", "--prune=now")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
			cmd.Run() // a gc that meets a ref lock fails; the next one runs
			gcs++
		}
	}()
	const sessions = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	var reported []string
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fmt.Sprintf("s%02d", i)
			for round := range 2 {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("work-%s-%d.txt", s, round)), []byte(s), 0o644)
				var cmd *exec.Cmd
				if round == 0 {
					cmd = ctxgitCmd(dir, "hook", "claude-code", "session-start")
					cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"cwd":%q,"source":"startup"}`, s, dir))
					cmd.Env = append(cmd.Env, "CTXGIT_HOOK_DETACH=0")
				} else {
					cmd = ctxgitCmd(dir, "checkpoint", "-s", s, "-m", "beside gc")
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					// A checkpoint lost to the race is one reported line.
					if !strings.HasPrefix(string(out), "ctxgit: ") || strings.Contains(string(out), "panic") {
						t.Errorf("%v: %v, unreported:\n%s", cmd.Args, err, out)
					}
					mu.Lock()
					reported = append(reported, strings.TrimSpace(string(out)))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	done.Store(true)
	gcWG.Wait()
	if log, err := os.ReadFile(filepath.Join(dir, ".ctxgit/local/ctxgit.log")); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
			if l != "" && !strings.Contains(l, ": note: ") {
				reported = append(reported, l)
			}
		}
	}
	t.Logf("%d gc runs; %d checkpoints reported lost: %q", gcs, len(reported), reported)

	// Every session takes its next checkpoint, lists, and recovers.
	for i := range sessions {
		s := fmt.Sprintf("s%02d", i)
		mustRun(t, ctxgitCmd(dir, "checkpoint", "-s", s, "-m", "after the storm"))
		if out := mustRun(t, ctxgitCmd(dir, "recover", "-s", s, "--peek")); !strings.Contains(out, "# Post-Compaction Recovery") {
			t.Errorf("session %s does not recover:\n%s", s, out)
		}
	}
	cmd := ctxgitCmd(dir, "log", "--sessions", "--json")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("log --sessions: %v\n%s", err, out)
	}
	for i := range sessions {
		if !strings.Contains(string(out), fmt.Sprintf(`"session": "s%02d"`, i)) {
			t.Errorf("session s%02d lost:\n%s", i, out)
		}
	}
	if strings.Contains(string(out), "skipped") {
		t.Errorf("a session ref was left broken after its next checkpoint:\n%s", out)
	}
}
