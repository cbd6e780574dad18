package workspace

import (
	"errors"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// A checkpoint whose commit git gc --prune=now removed before its ref
// moved puts the ref back and is reported: the session keeps its
// previous checkpoint (issue 24 item 2).
func TestPruneRacedPutsTheRefBack(t *testing.T) {
	s := vcs.NewMemStore()
	tree, err := s.WriteObject(vcs.TreeObject, nil)
	if err != nil {
		t.Fatal(err)
	}
	sig := vcs.Signature{Name: "t", Email: "t@t"}
	prev, err := vcs.WriteCommit(s, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: "prev\n"})
	if err != nil {
		t.Fatal(err)
	}
	ref := spec.SessionRefPrefix + "a"
	gone := vcs.HashObject(vcs.CommitObject, []byte("pruned"))
	if err := s.UpdateRef(ref, gone, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	err = pruneRaced(s, ref, gone, prev, tree)
	if !errors.Is(err, spec.ErrConflict) {
		t.Fatalf("pruneRaced = %v, want a conflict", err)
	}
	if got, _ := s.ReadRef(ref); got != prev {
		t.Fatalf("ref at %s, want it back at %s", got, prev)
	}
	// A first checkpoint raced: the ref goes.
	ref2 := spec.SessionRefPrefix + "b"
	s.UpdateRef(ref2, gone, vcs.ZeroHash)
	if err := pruneRaced(s, ref2, gone, vcs.ZeroHash, tree); err == nil {
		t.Fatal("a raced first checkpoint was not reported")
	}
	if _, err := s.ReadRef(ref2); !errors.Is(err, vcs.ErrRefNotFound) {
		t.Fatalf("ref of a raced first checkpoint: %v, want none", err)
	}
	// Nothing raced: nothing moves.
	if err := pruneRaced(s, ref, prev, vcs.ZeroHash, tree); err != nil {
		t.Fatal(err)
	}
}
