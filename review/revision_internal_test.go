package review

import (
	"errors"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// prefixStore answers ObjectsWithPrefix with a fixed list, as a store
// whose objects share the prefix asked for.
type prefixStore struct {
	*vcs.MemStore
	ids []vcs.Hash
}

func (s prefixStore) ObjectsWithPrefix(string, int) ([]vcs.Hash, error) { return s.ids, nil }

// A short id expands as git expands it where a commit is wanted: the one
// commit among the objects it starts (a blob beside it does not make it
// ambiguous), none when no commit does, and a usage error (exit 2) when
// several commits do.
func TestExpandShortID(t *testing.T) {
	mem := vcs.NewMemStore()
	tree, _ := mem.WriteObject(vcs.TreeObject, nil)
	blob, _ := mem.WriteObject(vcs.BlobObject, []byte("x\n"))
	sig := vcs.Signature{Name: "Dev", Email: "dev@example.com", When: time.Unix(0, 0).UTC()}
	c1, _ := vcs.WriteCommit(mem, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: "one\n"})
	c2, _ := vcs.WriteCommit(mem, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: "two\n"})

	if id, err := expandShortID(prefixStore{mem, []vcs.Hash{blob, c1}}, "abcd", "abcd"); err != nil || id != c1 {
		t.Fatalf("a commit and a blob: %v, %v; want %v", id, err, c1)
	}
	if id, err := expandShortID(prefixStore{mem, []vcs.Hash{blob}}, "abcd", "abcd"); err != nil || !id.IsZero() {
		t.Fatalf("a blob only: %v, %v; want none", id, err)
	}
	_, err := expandShortID(prefixStore{mem, []vcs.Hash{c1, c2}}, "abcd", "abcd")
	if !errors.Is(err, spec.ErrUsage) || err.Error() != "--base abcd: the short commit id is ambiguous; give more of it" {
		t.Fatalf("two commits: %v", err)
	}
	// Too short, too long or not hex: not a short id at all.
	for _, name := range []string{"abc", "main", "abcg"} {
		if id, err := expandShortID(prefixStore{mem, []vcs.Hash{c1}}, name, name); err != nil || !id.IsZero() {
			t.Errorf("%q: %v, %v; want none", name, id, err)
		}
	}
}
