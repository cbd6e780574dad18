//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
)

// Issue 17 item 6, docs/cli.md#exit-codes: `ctxgit checkpoint` sent SIGINT
// while it walks and hashes a large workspace exits 130 with the one line
// "ctxgit: interrupted", the session ref unchanged, no lock or temporary file
// left, and git fsck clean. A real child process (this test binary run as
// ctxgit), so the signal handling itself is what is tested.
func TestCheckpointSIGINT(t *testing.T) {
	t.Parallel()
	exe := ctxgitOnPath(t)
	k := &killFixture{exe: exe}
	home := t.TempDir()
	for _, e := range testEnviron() {
		if !strings.HasPrefix(e, "CTXGIT_") && !strings.HasPrefix(e, "GIT_") {
			k.env = append(k.env, e)
		}
	}
	k.env = append(k.env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	k.git(t, dir, "init", "-q", "-b", "main")
	k.git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial")
	k.ctxgit(t, dir, "init")
	k.ctxgit(t, dir, "checkpoint", "-m", "small")
	const ref = "refs/ctxgit/sessions/default"
	status := k.git(t, dir, "status", "--porcelain", "--untracked-files=no")

	// Interrupted after a delay: one that lets the checkpoint finish is
	// halved (and the tree changed again, so there is work to stop).
	delay := 80 * time.Millisecond
	for attempt := range 10 {
		writeBigTree(t, dir, attempt)
		before := strings.TrimSpace(k.git(t, dir, "rev-parse", ref))
		cmd := exec.Command(exe, "checkpoint", "-m", "big")
		var stderr bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stderr = dir, k.env, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			t.Logf("attempt %d: finished within %v", attempt, delay)
			delay /= 2
			continue
		case errors.As(err, &ee) && ee.ExitCode() == -1:
			// Signalled before its handler was installed, so killed as
			// any program is: too early (a loaded machine starts a
			// process slowly), try a little later.
			t.Logf("attempt %d: killed by the signal before it ran (%v)", attempt, delay)
			delay = delay * 3 / 2
			continue
		case !errors.As(err, &ee) || ee.ExitCode() != spec.ExitInterrupted:
			t.Fatalf("attempt %d: %v, want exit %d\n%s", attempt, err, spec.ExitInterrupted, stderr.String())
		}
		if got := stderr.String(); got != "ctxgit: interrupted\n" {
			t.Fatalf("stderr = %q, want the one line \"ctxgit: interrupted\"", got)
		}
		if after := strings.TrimSpace(k.git(t, dir, "rev-parse", ref)); after != before {
			t.Fatalf("the session ref moved from %s to %s", before, after)
		}
		if left := interruptLeftovers(t, dir); len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
		k.git(t, dir, "fsck", "--strict", "--no-dangling")
		if got := k.git(t, dir, "status", "--porcelain", "--untracked-files=no"); got != status {
			t.Fatalf("git status changed:\n%s", got)
		}
		// Nothing stands in the way of the next checkpoint.
		k.ctxgit(t, dir, "checkpoint", "-m", "after")
		return
	}
	t.Fatal("no checkpoint was interrupted: every one finished before the signal")
}

// writeBigTree writes a workspace large enough that a checkpoint spends a
// while walking and hashing it; round changes every file's content.
func writeBigTree(t *testing.T, dir string, round int) {
	t.Helper()
	pad := bytes.Repeat([]byte("x"), 2048)
	for d := range 300 {
		sub := filepath.Join(dir, "big", fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 10 {
			data := append(fmt.Appendf(nil, "round %d dir %d file %d\n", round, d, f), pad...)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.txt", f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// interruptLeftovers lists lock and temporary files below dir: the
// workspace lock, git ref and index locks, object and pack temporaries,
// ctxgit's atomic-write temporaries.
func interruptLeftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if atomicfile.IsTemp(name) || strings.HasPrefix(name, "tmp_") || strings.HasSuffix(name, ".lock") ||
			p == filepath.Join(dir, filepath.FromSlash(spec.LocalDir), "lock") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
