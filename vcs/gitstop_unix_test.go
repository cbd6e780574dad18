//go:build unix

package vcs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 17 item 6: an interrupted network transfer asks git to stop
// (SIGTERM, which git's tempfile handlers clean up on) rather than
// killing it outright, so git's temporary packs are not left behind.
func TestInterruptedGitGetsSIGTERM(t *testing.T) {
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "mark")
	script := "#!/bin/sh\ntrap 'echo term > \"$CTXGIT_TEST_MARK\"; exit 143' TERM\nsleep 60 >/dev/null 2>&1 &\nwait $!\n"
	must(t, os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CTXGIT_TEST_MARK", mark)
	gitDir := filepath.Join(t.TempDir(), "store.git")
	_, err := vcs.InitPrivate(gitDir)
	must(t, err)
	ep, err := vcs.ParseEndpoint("ssh://example.invalid/remote.git", "/")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: gitDir, Timeout: time.Minute, Ctx: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("connect = %v, want context.Canceled", err)
	}
	if got, err := os.ReadFile(mark); err != nil || string(got) != "term\n" {
		t.Fatalf("git was not sent SIGTERM: %q, %v", got, err)
	}
}
