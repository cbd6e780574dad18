package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
	"github.com/ctxgit/ctxgit/workspace"
)

// treeFiles maps every file below dir (store included) to its content.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// leftovers are the temporary and lock files among files: an interrupted
// command removes its own.
func leftovers(files map[string]string) []string {
	var out []string
	for p := range files {
		base := p[strings.LastIndex(p, "/")+1:]
		if atomicfile.IsTemp(base) || strings.HasPrefix(base, "tmp_") || strings.HasSuffix(base, ".lock") || p == spec.LocalDir+"/lock" {
			out = append(out, p)
		}
	}
	return out
}

func writeTree(t *testing.T, root, tag string, dirs, files int) {
	t.Helper()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", f)), fmt.Appendf(nil, "%s: dir %d file %d\n", tag, d, f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Issue 17 item 6: a restore interrupted at any check either changed
// nothing (before its safety checkpoint) or stopped between files: every
// file is then whole, old or restored, no temporary file is left, the
// lock is free, and the safety checkpoint holds the workspace as it was.
func TestRestoreCancelled(t *testing.T) {
	w := restoreWS(t, nil)
	dir := w.Root
	writeTree(t, dir, "old", 4, 5)
	from, err := w.Checkpoint(workspace.CheckpointOptions{Message: "old"})
	if err != nil {
		t.Fatal(err)
	}
	name := from.Checkpoint.Meta.CheckpointID
	partial := 0
	// The first pass takes the safety checkpoint (and is interrupted in
	// it); the second, from the same changes, reuses it, so its checks
	// reach the file writes one by one.
	for range 2 {
		restoreUntilDone(t, w, dir, name, &partial)
	}
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
		writeTree(t, dir, "new", 4, 5)
		_, err := w.Restore(Options{Name: name, Ctx: vcstest.CancelAfter(n)})
		files := treeFiles(t, dir)
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
		if left := leftovers(files); len(left) > 0 {
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
