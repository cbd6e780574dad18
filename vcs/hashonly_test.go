package vcs_test

import (
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// A dry run's view of the store hashes and keeps trees in memory and
// refuses to write anything to the real store.
func TestHashOnlyStore(t *testing.T) {
	base := vcs.NewMemStore()
	s := vcs.NewHashOnly(base)
	id, err := s.WriteObject(vcs.BlobObject, []byte("x"))
	if err != nil || id != vcs.HashObject(vcs.BlobObject, []byte("x")) {
		t.Fatalf("blob = %s, %v", id, err)
	}
	tree, err := vcs.WriteTree(s, []vcs.TreeEntry{{Name: "x", Mode: vcs.ModeFile, ID: id}})
	if err != nil {
		t.Fatal(err)
	}
	if entries, err := vcs.ReadTree(s, tree); err != nil || len(entries) != 1 {
		t.Errorf("tree read back = %v, %v", entries, err)
	}
	for _, h := range []vcs.Hash{id, tree} {
		if ok, _ := base.HasObject(h); ok {
			t.Errorf("%s reached the real store", h.Short())
		}
	}
	if _, err := s.NewBatch(); err == nil {
		t.Error("NewBatch succeeded")
	}
	if err := s.UpdateRef("refs/ctxgit/x", tree, vcs.ZeroHash); err == nil {
		t.Error("UpdateRef succeeded")
	}
}
