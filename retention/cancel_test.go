package retention_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/retention"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
)

var fixedNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func realpath(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Issue 17 item 6: a prune interrupted before its refs move changes no
// ref; one interrupted in its repack has moved them all (each a complete
// chain) and deleted nothing. No lock or temporary file is left, and a
// prune run afterwards finishes the work.
func TestPruneCancelled(t *testing.T) {
	w, now := pruneWorkspace(t)
	for i := range 4 {
		for _, s := range []string{"a", "b", "c"} {
			checkpointAt(t, w, now, fixedNow.Add(time.Duration(i)*time.Minute), s, s+".txt", fmt.Sprint(i))
		}
	}
	store, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	heads := func() map[string]vcs.Hash {
		out := map[string]vcs.Hash{}
		refs, err := store.ListRefs(spec.RefPrefix)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			out[r.Name] = r.ID
			if err := vcs.WalkReachable(store, []vcs.Hash{r.ID}, nil, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil }); err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
		}
		return out
	}
	orig := heads()
	beforeMove, inRepack := 0, 0
	for n := 0; ; n++ {
		if n > 2000 {
			t.Fatal("the prune never finished")
		}
		storeBefore := wstest.TreeFiles(t, w.Path(spec.PrivateStoreDir))
		res, err := retention.Prune(w, retention.PruneOptions{Keep: intp(1), Ctx: vcstest.CancelAfter(n)})
		if left := wstest.Leftovers(wstest.TreeFiles(t, w.Root)); len(left) > 0 {
			t.Fatalf("interrupted at check %d: left %v", n, left)
		}
		now := heads()
		if err == nil {
			if res.Repack == nil {
				t.Fatal("finished prune: no repack")
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted at check %d: %v, want context.Canceled", n, err)
		}
		switch moved := !maps.Equal(now, orig); {
		case !moved:
			beforeMove++
			if after := wstest.TreeFiles(t, w.Path(spec.PrivateStoreDir)); !maps.Equal(after, storeBefore) {
				t.Fatalf("interrupted at check %d, before the refs moved: the store changed", n)
			}
		default:
			inRepack++
			for name, id := range now {
				if id == orig[name] {
					t.Fatalf("interrupted at check %d: %s did not move while others did", n, name)
				}
			}
			// The refs moved: later runs start from here.
			orig = now
		}
	}
	if beforeMove == 0 || inRepack == 0 {
		t.Fatalf("interrupted %d times before the refs moved and %d in the repack: each must happen", beforeMove, inRepack)
	}
	sessions, err := w.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		c, err := vcs.ReadCommit(store, s.ID)
		if err != nil || len(c.Parents) != 0 {
			t.Fatalf("%s after prune --keep 1: %v, parents %v", s.Name, err, c)
		}
	}
}
