//go:build unix

package hookpath

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

// The markers ctxgit-hook reads on every tool call are read by the file
// rule: a repository that commits one as a link to /dev/zero or as a FIFO
// gets it refused at once, not read without end (issue 32 defect 4: the
// hook grew at 300-400 MB/s until the OOM killer) or waited on.
func TestMarkersReadByTheRule(t *testing.T) {
	root := t.TempDir()
	local := filepath.Join(root, LocalDir)
	for _, d := range []string{"hooks", "readings", "nudge"} {
		if err := os.MkdirAll(filepath.Join(local, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", GaugeFile(root)); err != nil {
		t.Skip("no symlinks here:", err)
	}
	os.Symlink("/dev/zero", StatePath(root, "s"))
	if err := syscall.Mkfifo(NudgePath(root, "s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(ReadingPath(root, "s"), 0o644); err != nil {
		t.Fatal(err)
	}
	wstest.Within(t, "ReadGaugeConfig", func() {
		if _, ok := ReadGaugeConfig(root); ok {
			t.Error("a gauge file linked to /dev/zero read")
		}
	})
	wstest.Within(t, "ReadJSON", func() {
		var v map[string]any
		if _, err := ReadJSON(StatePath(root, "s"), &v); err == nil {
			t.Error("ReadJSON of a link to /dev/zero read it")
		}
	})
	wstest.Within(t, "nudgeDelivered", func() {
		if nudgeDelivered(root, "s") {
			t.Error("a FIFO nudge marker taken for a delivered one")
		}
	})
	wstest.Within(t, "recorded", func() {
		if recorded(root, "s", 0.5, time.Now()) {
			t.Error("a FIFO reading taken for a recorded one")
		}
	})
}

// A marker directory, .ctxgit/local/ or .ctxgit/ that is a link sends the
// call to ctxgit hook, which refuses it and logs why: ctxgit-hook reads no
// marker through a link.
func TestSteadyRefusesLinkedDirs(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(root, ".git", "HEAD"))
	touch(t, filepath.Join(root, ".ctxgit/config.yaml"))
	touch(t, HookRanPath(root, "cursor", "post-tool-use"))
	noEnv := func(string) string { return "" }
	payload := []byte(`{"conversation_id":"conv-7","cwd":"` + filepath.ToSlash(root) + `","cursor_version":"3.9.0"}`)
	steady := func() bool { return Steady("cursor", "post-tool-use", payload, noEnv, root, time.Now()) }
	if !steady() {
		t.Fatal("not steady with nothing to do")
	}
	elsewhere := t.TempDir()
	for _, d := range []string{"pending", "nudge", FailedDir} {
		p := filepath.Join(root, LocalDir, d)
		if err := os.Symlink(elsewhere, p); err != nil {
			t.Skip("no symlinks here:", err)
		}
		if steady() {
			t.Errorf("steady with %s a link", d)
		}
		os.Remove(p)
	}
	local := filepath.Join(root, LocalDir)
	moved := filepath.Join(root, "local-moved")
	if err := os.Rename(local, moved); err != nil {
		t.Fatal(err)
	}
	os.Symlink(moved, local)
	if steady() {
		t.Error("steady with .ctxgit/local a link")
	}
}
