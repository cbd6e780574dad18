//go:build unix

package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

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
	within(t, "ReadState", func() {
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
	within(t, "ReadLocal", func() {
		if _, err := workspace.ReadLocal(root, filepath.Join(local, "current-session.json"), 1<<10); !errors.Is(err, workspace.ErrRefused) {
			t.Errorf("ReadLocal(FIFO) = %v", err)
		}
	})
}
