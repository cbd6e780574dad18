package restore

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
	"github.com/ctxgit/ctxgit/workspace"
)

// Issue 17 item 6: a restore interrupted at any check either changed
// nothing (before its safety checkpoint) or stopped between files: every
// file is then whole, old or restored, no temporary file is left, the
// lock is free, and the safety checkpoint holds the workspace as it was.
func TestRestoreCancelled(t *testing.T) {
	w := restoreWS(t, nil)
	dir := w.Root
	wstest.WriteTree(t, dir, "old", 4, 5)
	from, err := w.Checkpoint(workspace.CheckpointOptions{Message: "old"})
	if err != nil {
		t.Fatal(err)
	}
	name := from.Checkpoint.Meta.CheckpointID
	partial := 0
	// The first pass takes the safety checkpoint (and is interrupted in
	// it). A finished restore ends with a checkpoint of the restored
	// workspace, so the second pass starts from what a restore that failed
	// after its safety checkpoint leaves: that one, reused, so its checks
	// reach the file writes one by one.
	restoreUntilDone(t, w, dir, name, &partial)
	wstest.WriteTree(t, dir, "new", 4, 5)
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Trigger: spec.TriggerRestore, Message: "before restoring default:" + name + " (whole snapshot)"}); err != nil {
		t.Fatal(err)
	}
	restoreUntilDone(t, w, dir, name, &partial)
	if partial == 0 {
		t.Fatal("no restore was interrupted between files: the test proves nothing")
	}
}

func restoreUntilDone(t *testing.T, w *ws, dir, name string, partial *int) {
	t.Helper()
	for n := 0; ; n++ {
		if n > 2000 {
			t.Fatal("the restore never finished")
		}
		// Each run starts from the same changes (after the first safety
		// checkpoint, the one it reuses).
		wstest.WriteTree(t, dir, "new", 4, 5)
		_, err := w.Restore(Options{Name: name, Ctx: vcstest.CancelAfter(n)})
		files := wstest.TreeFiles(t, dir)
		old, nw := 0, 0
		for d := range 4 {
			for f := range 5 {
				switch files[fmt.Sprintf("d%02d/f%d.txt", d, f)] {
				case fmt.Sprintf("old: dir %d file %d\n", d, f):
					old++
				case fmt.Sprintf("new: dir %d file %d\n", d, f):
					nw++
				default:
					t.Fatalf("interrupted at check %d: d%02d/f%d.txt is neither old nor new", n, d, f)
				}
			}
		}
		if left := wstest.Leftovers(files); len(left) > 0 {
			t.Fatalf("interrupted at check %d: left %v", n, left)
		}
		if err == nil {
			if old != 20 {
				t.Fatalf("finished restore: %d of 20 files restored", old)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted at check %d: %v, want context.Canceled", n, err)
		}
		if old > 0 && nw > 0 {
			*partial++
		}
	}
}
