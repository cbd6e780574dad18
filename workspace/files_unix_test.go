//go:build unix

package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/workspace"
)

// A FIFO in a state file's place (or in a marker's) is refused at once:
// opening it for reading would wait for a writer forever (issue 32
// defect 7).
func TestStateFileFIFORefused(t *testing.T) {
	w, root, _ := fileRuleWS(t)
	if err := syscall.Mkfifo(filepath.Join(root, ".active-plan.md"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	wstest.Within(t, "ReadState", func() {
		st := w.ReadState()
		if st.Plan != nil || len(st.Problems) != 1 || st.Problems[0].Error() != ".active-plan.md: is a FIFO, not a regular file: not read" {
			t.Errorf("ReadState: plan %v, problems %v", st.Plan, st.Problems)
		}
	})
	local := filepath.Join(root, ".ctxgit", "local")
	os.MkdirAll(local, 0o755)
	if err := syscall.Mkfifo(filepath.Join(local, "current-session.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	wstest.Within(t, "ReadLocal", func() {
		if _, err := workspace.ReadLocal(root, filepath.Join(local, "current-session.json"), 1<<10); !errors.Is(err, workspace.ErrRefused) {
			t.Errorf("ReadLocal(FIFO) = %v", err)
		}
	})
}

// A lock a repository commits as a FIFO is not read (reading the holder
// waited on it forever): once old, it is taken for the junk it is,
// removed, and the lock taken.
func TestLockFIFOTakenOver(t *testing.T) {
	w, root, _ := fileRuleWS(t)
	lock := filepath.Join(root, ".ctxgit", "local", "lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	if err := syscall.Mkfifo(lock, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	old := fixedNow.Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	wstest.Within(t, "Lock", func() {
		l, err := w.Lock()
		if err != nil {
			t.Errorf("Lock over a FIFO: %v", err)
			return
		}
		defer l.Unlock()
		if fi, err := os.Lstat(lock); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("the lock is not ctxgit's regular file: %v", err)
		}
	})
}
