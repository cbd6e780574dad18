//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeAttachedGit is a git that answers a line of stdin on stdout (the
// person's terminal passes through), starts a helper that ignores SIGTERM
// (as ssh might outlive git), writes both pids, and on SIGTERM notes it
// and exits 143.
const fakeAttachedGit = `#!/bin/sh
read line
echo "git read: $line"
(trap '' TERM; exec sleep 300) >/dev/null 2>&1 &
echo $! > "$FAKE_GIT_DIR/helper.pid"
trap 'echo term > "$FAKE_GIT_DIR/term"; exit 143' TERM
echo $$ > "$FAKE_GIT_DIR/git.pid"
while :; do sleep 1; done
`

// Issue 24: `ctxgit git …` was an unbounded child. It is now bounded as
// ctxgit's other git children are, while the person's stdin and stdout
// still reach git: a SIGTERM to ctxgit (which it handles) stops git with
// SIGTERM, and what is left of git's process group (a helper ignoring
// SIGTERM) is killed; on Linux a SIGKILLed ctxgit takes git with it
// (the death signal), where before git kept running.
func TestGitPassthroughIsBounded(t *testing.T) {
	exe := ctxgitOnPath(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			if sig == syscall.SIGKILL && runtime.GOOS != "linux" {
				t.Skip("only Linux has a death signal; elsewhere nothing can act on a SIGKILL")
			}
			dir := filepath.Join(t.TempDir(), "ws")
			bin, state := t.TempDir(), t.TempDir()
			must(t, os.MkdirAll(dir, 0o755))
			must(t, os.WriteFile(filepath.Join(bin, "git"), []byte(fakeAttachedGit), 0o755))
			home := t.TempDir()
			var env []string
			for _, e := range os.Environ() {
				if !strings.HasPrefix(e, "CTXGIT_") && !strings.HasPrefix(e, "GIT_") && !strings.HasPrefix(e, "PATH=") {
					env = append(env, e)
				}
			}
			env = append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "FAKE_GIT_DIR="+state,
				"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			init := exec.Command(exe, "init")
			init.Dir, init.Env = dir, env
			if out, err := init.CombinedOutput(); err != nil {
				t.Fatalf("ctxgit init: %v\n%s", err, out)
			}

			cmd := exec.Command(exe, "git", "--", "log")
			var stdout, stderr bytes.Buffer
			cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, env, strings.NewReader("hello\n"), &stdout, &stderr
			must(t, cmd.Start())
			gitPid := waitPid(t, filepath.Join(state, "git.pid"))
			helper := waitPid(t, filepath.Join(state, "helper.pid"))
			defer syscall.Kill(helper, syscall.SIGKILL)
			defer syscall.Kill(gitPid, syscall.SIGKILL)
			if sig == syscall.SIGTERM {
				// Once its handler is in place: ctxgit started git after it.
				time.Sleep(100 * time.Millisecond)
			}
			must(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("ctxgit did not exit after %v: git was not stopped", sig)
			}
			if !strings.Contains(stdout.String(), "git read: hello") {
				t.Errorf("stdin and stdout did not pass through: stdout %q, stderr %q", stdout.String(), stderr.String())
			}
			waitFile(t, filepath.Join(state, "term"), "git was not sent SIGTERM")
			waitGone(t, gitPid, "git")
			if sig == syscall.SIGTERM {
				// The helper is killed with the group once git exited.
				waitGone(t, helper, "git's helper")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	for range 400 {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			must(t, err)
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
	return 0
}

func waitFile(t *testing.T, path, why string) {
	t.Helper()
	for range 200 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal(why)
}

// waitGone waits until pid no longer runs: gone, or a zombie no one
// reaped (a container's first process may reap nothing).
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for range 200 {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return
		}
		if out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output(); err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), "Z") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("%s (pid %d) outlived ctxgit", what, pid)
}
