package vcs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// git pack-refs writes packed-refs, then deletes the loose files: a
// listing that saw a loose file and then reads it finds it gone. It must
// find the ref in packed-refs, not fail (issue 24 item 3).
func TestListRefsPackRefsRace(t *testing.T) {
	g, err := InitPrivate(filepath.Join(t.TempDir(), "store.git"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.WriteObject(BlobObject, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"refs/ctxgit/sessions/a", "refs/ctxgit/sessions/b", "refs/ctxgit/sessions/c"}
	for _, n := range names {
		if err := g.UpdateRef(n, id, ZeroHash); err != nil {
			t.Fatal(err)
		}
	}
	for _, raced := range names {
		t.Run(raced[strings.LastIndexByte(raced, '/')+1:], func(t *testing.T) {
			packed := false
			beforeLooseRead = func(name string) {
				if name != raced || packed {
					return
				}
				packed = true
				// What pack-refs does: every ref into packed-refs, then
				// the loose file away.
				var b strings.Builder
				b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
				for _, n := range names {
					b.WriteString(id.String() + " " + n + "\n")
				}
				if err := os.WriteFile(filepath.Join(g.commonDir, "packed-refs"), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(g.refPath(name)); err != nil {
					t.Fatal(err)
				}
			}
			defer func() { beforeLooseRead = nil }()
			refs, err := g.ListRefs("refs/ctxgit/sessions/")
			if err != nil {
				t.Fatalf("ListRefs during pack-refs: %v", err)
			}
			if !packed {
				t.Fatal("the race was not staged")
			}
			if len(refs) != len(names) {
				t.Fatalf("ListRefs = %v, want all of %v", refs, names)
			}
			scanned, problems := g.ScanRefs("refs/ctxgit/")
			if len(problems) != 0 || len(scanned) != len(names) {
				t.Fatalf("ScanRefs = %v, %v", scanned, problems)
			}
			// Put the loose file back for the next case.
			if err := os.Remove(filepath.Join(g.commonDir, "packed-refs")); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if err := os.WriteFile(g.refPath(n), []byte(id.String()+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
