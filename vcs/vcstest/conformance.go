// Package vcstest is the conformance suite every vcs.Store implementation
// runs, so the in-memory store used in tests behaves as the git one does.
package vcstest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// Run runs the suite against stores made by newStore (a fresh, empty store
// each call).
func Run(t *testing.T, newStore func(t *testing.T) vcs.Store) {
	t.Run("objects", func(t *testing.T) { testObjects(t, newStore(t)) })
	t.Run("batch", func(t *testing.T) { testBatch(t, newStore(t)) })
	t.Run("write-keeps-no-reference", func(t *testing.T) { testWriteKeepsNoReference(t, newStore(t)) })
	t.Run("big-batch", func(t *testing.T) { testBigBatch(t, newStore(t)) })
	t.Run("trees-and-commits", func(t *testing.T) { testTreesAndCommits(t, newStore(t)) })
	t.Run("refs", func(t *testing.T) { testRefs(t, newStore(t)) })
	t.Run("ref-races", func(t *testing.T) { testRefRaces(t, newStore(t)) })
}

func testObjects(t *testing.T, s vcs.Store) {
	data := []byte("hello\n")
	// git hash-object of "hello\n" is ce01362...
	want := "ce013625030ba8dba906f756967f9e9ca394464a"
	h, err := s.WriteObject(vcs.BlobObject, data)
	if err != nil {
		t.Fatal(err)
	}
	if h.String() != want {
		t.Fatalf("blob id = %s, want %s", h, want)
	}
	if ok, err := s.HasObject(h); err != nil || !ok {
		t.Fatalf("HasObject after write = %v, %v", ok, err)
	}
	typ, got, err := s.ReadObject(h)
	if err != nil || typ != vcs.BlobObject || string(got) != string(data) {
		t.Fatalf("ReadObject = %v %q %v", typ, got, err)
	}
	if _, err := s.WriteObject(vcs.BlobObject, data); err != nil {
		t.Fatalf("rewriting an existing object: %v", err)
	}
	missing := vcs.HashObject(vcs.BlobObject, []byte("never written"))
	if ok, err := s.HasObject(missing); err != nil || ok {
		t.Fatalf("HasObject(missing) = %v, %v", ok, err)
	}
	if _, _, err := s.ReadObject(missing); !errors.Is(err, vcs.ErrObjectNotFound) {
		t.Fatalf("ReadObject(missing) error = %v, want ErrObjectNotFound", err)
	}
	empty, err := s.WriteObject(vcs.BlobObject, nil)
	if err != nil || empty.String() != "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" {
		t.Fatalf("empty blob = %s, %v", empty, err)
	}
}

// testWriteKeepsNoReference: the caller may reuse what it gave
// WriteObject (the snapshot reuses its read buffers).
func testWriteKeepsNoReference(t *testing.T, s vcs.Store) {
	for _, typ := range []vcs.ObjectType{vcs.BlobObject, vcs.CommitObject} {
		buf := []byte("tree " + vcs.ZeroHash.String() + "\nauthor a <a@a> 0 +0000\ncommitter a <a@a> 0 +0000\n\nreused\n")
		want := string(buf)
		h, err := s.WriteObject(typ, buf)
		if err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] = 'x'
		}
		if _, data, err := s.ReadObject(h); err != nil || string(data) != want {
			t.Fatalf("%v: read back %q, %v; want what was written", typ, data, err)
		}
	}
}

func testBatch(t *testing.T, s vcs.Store) {
	b, err := s.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	var ids []vcs.Hash
	for i := range 5 {
		h, err := b.Add(vcs.BlobObject, fmt.Appendf(nil, "small %d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h)
	}
	if _, err := b.Add(vcs.BlobObject, []byte("small 0")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, h := range ids {
		if _, _, err := s.ReadObject(h); err != nil {
			t.Fatalf("object %s of a committed batch: %v", h, err)
		}
	}
	// An aborted batch stores nothing.
	b2, _ := s.NewBatch()
	h, _ := b2.Add(vcs.BlobObject, []byte("aborted"))
	b2.Abort()
	if ok, _ := s.HasObject(h); ok {
		t.Fatal("aborted batch object is stored")
	}
}

func testBigBatch(t *testing.T, s vcs.Store) {
	b, err := s.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	ids := make([]vcs.Hash, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				data := fmt.Appendf(nil, "object %d %s", i, make([]byte, i%50))
				h, err := b.Add(vcs.BlobObject, data)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				ids[i] = h
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	if b.Len() != n {
		t.Fatalf("Len = %d, want %d", b.Len(), n)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for i, h := range ids {
		_, data, err := s.ReadObject(h)
		if err != nil {
			t.Fatalf("object %d: %v", i, err)
		}
		if want := fmt.Appendf(nil, "object %d %s", i, make([]byte, i%50)); string(data) != string(want) {
			t.Fatalf("object %d content differs", i)
		}
	}
}

func testTreesAndCommits(t *testing.T, s vcs.Store) {
	blob, _ := s.WriteObject(vcs.BlobObject, []byte("x"))
	sub, err := vcs.WriteTree(s, []vcs.TreeEntry{{Name: "f", Mode: vcs.ModeFile, ID: blob}})
	if err != nil {
		t.Fatal(err)
	}
	// "a.b" sorts before the directory "a" ("a/") but after file "a-".
	root, err := vcs.WriteTree(s, []vcs.TreeEntry{
		{Name: "a", Mode: vcs.ModeDir, ID: sub},
		{Name: "a.b", Mode: vcs.ModeFile, ID: blob},
		{Name: "a-", Mode: vcs.ModeExecutable, ID: blob},
	})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := vcs.ReadTree(s, root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if fmt.Sprint(names) != "[a- a.b a]" {
		t.Fatalf("tree order = %v, want [a- a.b a]", names)
	}
	when := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	sig := vcs.Signature{Name: "ctxgit", Email: "ctxgit@localhost", When: when}
	c1, err := vcs.WriteCommit(s, &vcs.Commit{Tree: root, Author: sig, Committer: sig, Message: "one\n"})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := vcs.WriteCommit(s, &vcs.Commit{Tree: root, Parents: []vcs.Hash{c1}, Author: sig, Committer: sig, Message: "two\n"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := vcs.ReadCommit(s, c2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tree != root || len(got.Parents) != 1 || got.Parents[0] != c1 || got.Message != "two\n" || !got.Author.When.Equal(when) {
		t.Fatalf("commit round trip = %+v", got)
	}
	data, err := vcs.ReadFileAt(s, c2tree(t, s, c2), "a/f")
	if err != nil || string(data) != "x" {
		t.Fatalf("ReadFileAt a/f = %q, %v", data, err)
	}
	if _, err := vcs.ReadFileAt(s, root, "a/missing"); !errors.Is(err, vcs.ErrObjectNotFound) {
		t.Fatalf("missing path error = %v", err)
	}
}

func c2tree(t *testing.T, s vcs.Store, c vcs.Hash) vcs.Hash {
	t.Helper()
	cm, err := vcs.ReadCommit(s, c)
	if err != nil {
		t.Fatal(err)
	}
	return cm.Tree
}

func testRefs(t *testing.T, s vcs.Store) {
	a, _ := s.WriteObject(vcs.BlobObject, []byte("a"))
	b, _ := s.WriteObject(vcs.BlobObject, []byte("b"))
	const name = "refs/ctxgit/sessions/s1"
	if _, err := s.ReadRef(name); !errors.Is(err, vcs.ErrRefNotFound) {
		t.Fatalf("ReadRef(absent) = %v", err)
	}
	if err := s.UpdateRef(name, a, vcs.ZeroHash); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := s.UpdateRef(name, b, vcs.ZeroHash); !errors.Is(err, vcs.ErrRefConflict) {
		t.Fatalf("create over existing = %v, want ErrRefConflict", err)
	}
	if err := s.UpdateRef(name, b, b); !errors.Is(err, vcs.ErrRefConflict) {
		t.Fatalf("update with stale old = %v, want ErrRefConflict", err)
	}
	if got, _ := s.ReadRef(name); got != a {
		t.Fatalf("ref moved on a failed swap: %s", got)
	}
	if err := s.UpdateRef(name, b, a); err != nil {
		t.Fatalf("update: %v", err)
	}
	if got, _ := s.ReadRef(name); got != b {
		t.Fatalf("ReadRef = %s, want %s", got, b)
	}
	if err := s.UpdateRef("refs/ctxgit/sessions/s2", a, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateRef("refs/ctxgit/other", a, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	refs, err := s.ListRefs("refs/ctxgit/sessions/")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].Name != name || refs[0].ID != b || refs[1].Name != "refs/ctxgit/sessions/s2" {
		t.Fatalf("ListRefs = %+v", refs)
	}
	if err := s.UpdateRef("refs/ctxgit/bad..name", a, vcs.ZeroHash); err == nil {
		t.Fatal("a ref name with '..' was accepted")
	}
	if err := s.DeleteRef(name, a); !errors.Is(err, vcs.ErrRefConflict) {
		t.Fatalf("delete with stale old = %v", err)
	}
	if err := s.DeleteRef(name, b); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := s.ReadRef(name); !errors.Is(err, vcs.ErrRefNotFound) {
		t.Fatalf("ReadRef after delete = %v", err)
	}
}

// testRefRaces has many goroutines advance one ref by compare-and-swap; every
// successful swap must be kept, so the final count equals the successes.
func testRefRaces(t *testing.T, s vcs.Store) {
	const name = "refs/ctxgit/sessions/race"
	ids := make([]vcs.Hash, 41)
	for i := range ids {
		ids[i], _ = s.WriteObject(vcs.BlobObject, fmt.Appendf(nil, "%d", i))
	}
	if err := s.UpdateRef(name, ids[0], vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	index := map[vcs.Hash]int{}
	for i, h := range ids {
		index[h] = i
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cur, err := s.ReadRef(name)
				if err != nil {
					t.Error(err)
					return
				}
				n := index[cur]
				if n == len(ids)-1 {
					return
				}
				err = s.UpdateRef(name, ids[n+1], cur)
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, vcs.ErrRefConflict) {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if wins != len(ids)-1 {
		t.Fatalf("%d successful swaps, want %d", wins, len(ids)-1)
	}
}
