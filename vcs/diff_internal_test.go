package vcs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDiffTreesMergeAsByName: the one-pass merge of sorted trees finds
// exactly the changes the comparison by name finds, on random pairs of
// trees with files, executables, links, a file and a directory of one
// name, and a tree whose entries are out of git's order (which the merge
// leaves to the comparison by name).
func TestDiffTreesMergeAsByName(t *testing.T) {
	s := NewMemStore()
	rng := rand.New(rand.NewPCG(37, 1))
	names := []string{"a", "a.go", "a-b", "a/b", "a/c", "b", "b/x", "b.d/y", "c/d/e", "c/d/f", "c/g", "d", "d0"}
	modes := []uint32{ModeFile, ModeFile, ModeExecutable, ModeSymlink}
	random := func() Hash {
		var entries []PathEntry
		seen := map[string]bool{}
		for _, n := range names {
			if rng.IntN(3) == 0 {
				continue
			}
			// A path and a path below it cannot both be files.
			blocked := false
			for p := range seen {
				if len(p) < len(n) && n[:len(p)+1] == p+"/" || len(n) < len(p) && p[:len(n)+1] == n+"/" {
					blocked = true
				}
			}
			if blocked {
				continue
			}
			seen[n] = true
			id, _ := s.WriteObject(BlobObject, fmt.Appendf(nil, "%d", rng.IntN(3)))
			entries = append(entries, PathEntry{Path: n, Mode: modes[rng.IntN(len(modes))], ID: id})
		}
		root, _ := WriteTree(s, nil)
		root, err := Overlay(s, root, entries)
		if err != nil {
			t.Fatal(err)
		}
		return root
	}
	byName := func(a, b Hash) []Change {
		var out []Change
		if err := diffDirByName(s, a, b, "", &out); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
		return out
	}
	merged := func(a, b Hash) []Change {
		var out []Change
		if err := diffDir(s, a, b, "", &out); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
		return out
	}
	for i := range 400 {
		a, b := random(), random()
		if got, want := merged(a, b), byName(a, b); !slices.Equal(got, want) {
			t.Fatalf("pair %d: merge\n%+v\nby name\n%+v", i, got, want)
		}
	}
	// Out of order: "b" before "a". git never writes this; the diff
	// still finds every change.
	blobA, _ := s.WriteObject(BlobObject, []byte("a"))
	blobB, _ := s.WriteObject(BlobObject, []byte("b"))
	data := append(append([]byte("100644 b\x00"), blobB[:]...), append([]byte("100644 a\x00"), blobA[:]...)...)
	unordered, _ := s.WriteObject(TreeObject, data)
	sorted, _ := WriteTree(s, []TreeEntry{{Name: "a", Mode: ModeFile, ID: blobB}, {Name: "b", Mode: ModeFile, ID: blobB}})
	got := merged(unordered, sorted)
	if len(got) != 1 || got[0].Path != "a" || got[0].Status != Modified {
		t.Fatalf("out-of-order tree: %+v", got)
	}
}
