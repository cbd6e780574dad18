package vcs_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// transferHistory is c1 (a.txt, dir/b.txt) and c2 on it (dir/b.txt
// changed), with every object id.
type transferHistory struct {
	c1, c2, tree1, tree2, dir1, dir2, a, b1, b2 vcs.Hash
}

func newTransferHistory(t *testing.T, s vcs.Store) transferHistory {
	t.Helper()
	var h transferHistory
	var err error
	blob := func(text string) vcs.Hash {
		id, err := s.WriteObject(vcs.BlobObject, []byte(text))
		must(t, err)
		return id
	}
	tree := func(entries ...vcs.TreeEntry) vcs.Hash {
		id, err := vcs.WriteTree(s, entries)
		must(t, err)
		return id
	}
	sig := vcs.Signature{Name: "a", Email: "b", When: time.Unix(0, 0).UTC()}
	h.a, h.b1, h.b2 = blob("a\n"), blob("b1\n"), blob("b2\n")
	h.dir1 = tree(vcs.TreeEntry{Name: "b.txt", Mode: vcs.ModeFile, ID: h.b1})
	h.dir2 = tree(vcs.TreeEntry{Name: "b.txt", Mode: vcs.ModeFile, ID: h.b2})
	h.tree1 = tree(vcs.TreeEntry{Name: "a.txt", Mode: vcs.ModeFile, ID: h.a}, vcs.TreeEntry{Name: "dir", Mode: vcs.ModeDir, ID: h.dir1})
	h.tree2 = tree(vcs.TreeEntry{Name: "a.txt", Mode: vcs.ModeFile, ID: h.a}, vcs.TreeEntry{Name: "dir", Mode: vcs.ModeDir, ID: h.dir2},
		vcs.TreeEntry{Name: "sub", Mode: vcs.ModeGitlink, ID: vcs.Hash{9}})
	h.c1, err = vcs.WriteCommit(s, &vcs.Commit{Tree: h.tree1, Author: sig, Committer: sig, Message: "one\n"})
	must(t, err)
	h.c2, err = vcs.WriteCommit(s, &vcs.Commit{Tree: h.tree2, Parents: []vcs.Hash{h.c1}, Author: sig, Committer: sig, Message: "two\n"})
	must(t, err)
	return h
}

func sameSet(got, want []vcs.Hash) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.SortFunc(g, func(x, y vcs.Hash) int { return slices.Compare(x[:], y[:]) })
	slices.SortFunc(w, func(x, y vcs.Hash) int { return slices.Compare(x[:], y[:]) })
	return slices.Equal(g, w)
}

// ReachableObjects lists every object once, commits first, and leaves
// out what known reports without descending into it; gitlinks are not
// objects of this repository.
func TestReachableObjects(t *testing.T) {
	s := vcs.NewMemStore()
	h := newTransferHistory(t, s)
	none := func(vcs.Hash) (bool, error) { return false, nil }

	ids, err := vcs.ReachableObjects(s, []vcs.Hash{h.c2}, none)
	must(t, err)
	if len(ids) != 9 || !sameSet(ids[:2], []vcs.Hash{h.c1, h.c2}) ||
		!sameSet(ids, []vcs.Hash{h.c1, h.c2, h.tree1, h.tree2, h.dir1, h.dir2, h.a, h.b1, h.b2}) {
		t.Fatalf("everything from c2 = %v", ids)
	}

	// The other side has c1: only c2's new commit, trees and blob go.
	known, err := vcs.KnownFrom(s, []vcs.Hash{h.c1})
	must(t, err)
	ids, err = vcs.ReachableObjects(s, []vcs.Hash{h.c2}, known)
	must(t, err)
	if len(ids) != 4 || ids[0] != h.c2 || !sameSet(ids, []vcs.Hash{h.c2, h.tree2, h.dir2, h.b2}) {
		t.Fatalf("c2 over c1 = %v, want c2, its tree, dir/ and dir/b.txt", ids)
	}

	// A known tree is not descended into: its blobs are never asked about.
	var asked []vcs.Hash
	ids, err = vcs.ReachableObjects(s, []vcs.Hash{h.c1}, func(id vcs.Hash) (bool, error) {
		asked = append(asked, id)
		return id == h.dir1, nil
	})
	must(t, err)
	if !sameSet(ids, []vcs.Hash{h.c1, h.tree1, h.a}) || slices.Contains(asked, h.b1) {
		t.Fatalf("c1 with dir/ known = %v (asked %v)", ids, asked)
	}

	// An error from known stops the walk.
	boom := errors.New("boom")
	if _, err := vcs.ReachableObjects(s, []vcs.Hash{h.c2}, func(vcs.Hash) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("known failing = %v", err)
	}
	// A tip must be a commit.
	if _, err := vcs.ReachableObjects(s, []vcs.Hash{h.tree1}, none); err == nil {
		t.Fatal("a tree as a tip was accepted")
	}
	// A missing object is an error, never left out.
	if _, err := vcs.ReachableObjects(s, []vcs.Hash{{7}}, none); !errors.Is(err, vcs.ErrObjectNotFound) {
		t.Fatalf("missing tip = %v", err)
	}
}

// KnownFrom holds each have's commit and whole snapshot, not its
// history, and ignores haves the store does not hold.
func TestKnownFrom(t *testing.T) {
	s := vcs.NewMemStore()
	h := newTransferHistory(t, s)
	known, err := vcs.KnownFrom(s, []vcs.Hash{h.c2, {7}})
	must(t, err)
	for _, id := range []vcs.Hash{h.c2, h.tree2, h.dir2, h.a, h.b2} {
		if ok, _ := known(id); !ok {
			t.Errorf("%s of c2's snapshot not known", id.Short())
		}
	}
	for _, id := range []vcs.Hash{h.c1, h.tree1, h.dir1, h.b1, {7}, {9}} {
		if ok, _ := known(id); ok {
			t.Errorf("%s known, but it is not in c2's snapshot", id.Short())
		}
	}
	if _, err := vcs.KnownFrom(s, []vcs.Hash{h.tree1}); err == nil {
		t.Fatal("a tree as a have was accepted")
	}
}
