package workspace

import (
	"errors"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// checkpointCommit writes a commit whose tree holds a checkpoint record
// at the path a head is read from; record is that blob's content.
func checkpointCommit(t *testing.T, s vcs.Store, record string) (commit, blob vcs.Hash) {
	t.Helper()
	blob, err := s.WriteObject(vcs.BlobObject, []byte(record))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := vcs.Overlay(s, vcs.ZeroHash, []vcs.PathEntry{{Path: spec.CheckpointYAMLPath, Mode: vcs.ModeFile, ID: blob}})
	if err != nil {
		t.Fatal(err)
	}
	sig := vcs.Signature{Name: "t", Email: "t@t"}
	commit, err = vcs.WriteCommit(s, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: record + "\n"})
	if err != nil {
		t.Fatal(err)
	}
	return commit, blob
}

// A checkpoint whose commit git gc --prune=now removed before its ref
// moved puts the ref back and is reported: the session keeps its
// previous checkpoint (issue 24 item 2).
func TestPruneRacedPutsTheRefBack(t *testing.T) {
	s := vcs.NewMemStore()
	prev, _ := checkpointCommit(t, s, "prev")
	ref := spec.SessionRefPrefix + "a"
	gone := vcs.HashObject(vcs.CommitObject, []byte("pruned"))
	if err := s.UpdateRef(ref, gone, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	err := pruneRaced(s, ref, gone, prev)
	if !errors.Is(err, spec.ErrConflict) {
		t.Fatalf("pruneRaced = %v, want a conflict", err)
	}
	if got, _ := s.ReadRef(ref); got != prev {
		t.Fatalf("ref at %s, want it back at %s", got, prev)
	}
	// A first checkpoint raced: the ref goes.
	ref2 := spec.SessionRefPrefix + "b"
	s.UpdateRef(ref2, gone, vcs.ZeroHash)
	if err := pruneRaced(s, ref2, gone, vcs.ZeroHash); err == nil {
		t.Fatal("a raced first checkpoint was not reported")
	}
	if _, err := s.ReadRef(ref2); !errors.Is(err, vcs.ErrRefNotFound) {
		t.Fatalf("ref of a raced first checkpoint: %v, want none", err)
	}
	// Nothing raced: nothing moves.
	if err := pruneRaced(s, ref, prev, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	// The commit survived but its record went (the prune's deletions
	// landed between the commit's and the record's): not taken either.
	next, record := checkpointCommit(t, s, "next")
	s.DeleteObject(record)
	if err := s.UpdateRef(ref, next, prev); err != nil {
		t.Fatal(err)
	}
	if err := pruneRaced(s, ref, next, prev); !errors.Is(err, spec.ErrConflict) {
		t.Fatalf("pruneRaced with the record gone = %v, want a conflict", err)
	}
	if got, _ := s.ReadRef(ref); got != prev {
		t.Fatalf("ref at %s, want it back at %s", got, prev)
	}
}

// A head whose commit reads but whose checkpoint record was pruned is a
// lost head (SPEC §7.5): listings skip it and the next checkpoint starts
// a new chain, where before it failed the session for good.
func TestHeadWithoutRecordIsLost(t *testing.T) {
	s := vcs.NewMemStore()
	head, record := checkpointCommit(t, s, "head")
	ref := spec.SessionRefPrefix + "a"
	if err := s.UpdateRef(ref, head, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if err := HeadStored(s, head); err != nil {
		t.Fatalf("HeadStored of a whole head: %v", err)
	}
	s.DeleteObject(record)
	if err := HeadStored(s, head); !errors.Is(err, vcs.ErrObjectNotFound) {
		t.Fatalf("HeadStored with the record gone = %v, want object not found", err)
	}
	_, _, readErr := readHead(s, ref)
	lost, err := lostHead(s, ref, readErr)
	if err != nil || lost != head {
		t.Fatalf("lostHead = %s, %v; want %s, nil", lost.Short(), err, head.Short())
	}
	// A record that is stored but does not parse is not a lost head: it
	// is refused, as it always was.
	bad, _ := checkpointCommit(t, s, "schema: [")
	s.UpdateRef(ref, bad, head)
	_, _, readErr = readHead(s, ref)
	if lost, err := lostHead(s, ref, readErr); err == nil {
		t.Fatalf("lostHead of an unparsable record = %s, nil; want the error", lost.Short())
	}
}
