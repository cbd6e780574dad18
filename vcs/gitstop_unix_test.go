//go:build unix

package vcs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 17 item 6: an interrupted network transfer asks git to stop
// (SIGTERM, which git's tempfile handlers clean up on) rather than
// killing it outright, so git's temporary packs are not left behind.
func TestInterruptedGitGetsSIGTERM(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	t.Setenv("CTXGIT_TEST_MARK", mark)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	err := connectThroughFakeGit(t, ctx, "#!/bin/sh\ntrap 'echo term > \"$CTXGIT_TEST_MARK\"; exit 143' TERM\nsleep 60 >/dev/null 2>&1 &\nwait $!\n")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("connect = %v, want context.Canceled", err)
	}
	if got, err := os.ReadFile(mark); err != nil || string(got) != "term\n" {
		t.Fatalf("git was not sent SIGTERM: %q, %v", got, err)
	}
}

// Issue 24 item 6: git runs in a process group of its own (Linux and
// macOS alike), and when ctxgit's context is cancelled (a Ctrl-C or
// SIGTERM ctxgit handles, or the timeout) the whole group stops: a
// helper git started (here a sleep standing in for ssh) that git left
// behind does not outlive the run. macOS has no death signal, so this is
// how its git children end with ctxgit.
func TestCancelledGitTakesItsGroupWithIt(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "helper.pid")
	// git leaves its helper running when asked to stop, and the helper
	// ignores the SIGTERM the group gets: only the group's SIGKILL once
	// git has exited ends it.
	script := "#!/bin/sh\n(trap '' TERM; exec sleep 300) >/dev/null 2>&1 &\necho $! > \"$CTXGIT_TEST_PID\"\ntrap 'exit 143' TERM\nwhile :; do sleep 1; done\n"
	t.Setenv("CTXGIT_TEST_PID", pidFile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	err := connectThroughFakeGit(t, ctx, script)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("connect = %v, want context.Canceled", err)
	}
	b, err := os.ReadFile(pidFile)
	must(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	must(t, err)
	// The helper was SIGKILLed with the group; once its orphan is reaped
	// it is gone.
	for i := 0; ; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			break
		}
		if i == 100 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("git's helper %d outlived the cancelled run: git had no group of its own, or the group was not killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// connectThroughFakeGit connects a new private store to an ssh remote
// with script standing in for git on PATH, and returns Connect's error.
func connectThroughFakeGit(t *testing.T, ctx context.Context, script string) error {
	t.Helper()
	bin := t.TempDir()
	must(t, os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	gitDir := filepath.Join(t.TempDir(), "store.git")
	_, err := vcs.InitPrivate(gitDir)
	must(t, err)
	ep, err := vcs.ParseEndpoint("ssh://example.invalid/remote.git", "/")
	must(t, err)
	_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: gitDir, Timeout: time.Minute, Ctx: ctx})
	return err
}
