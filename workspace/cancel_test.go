package workspace_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
	"github.com/ctxgit/ctxgit/workspace"
)

// Issue 17 item 6: a checkpoint interrupted at any of its checks (during
// the walk, the hashing, or just before its objects are stored) returns
// context.Canceled and changes nothing at all: not the ref, not the
// store, not the stat cache or the worktree copies, no lock or temporary
// file left. Once not interrupted, it is taken, and git fsck is clean.
func TestCheckpointCancelled(t *testing.T) {
	dir := realpath(t, t.TempDir())
	git(t, dir, "init", "-q", "-b", "main")
	wstest.WriteTree(t, dir, "one", 10, 4)
	w := openWS(t, dir)
	first, err := w.Checkpoint(workspace.CheckpointOptions{Message: "first"})
	if err != nil {
		t.Fatal(err)
	}
	wstest.WriteTree(t, dir, "two", 12, 4)
	store, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	ref := w.SessionRef(spec.DefaultSession)
	before := wstest.TreeFiles(t, dir)
	interrupted := 0
	for n := 0; ; n++ {
		if n > 2000 {
			t.Fatal("the checkpoint never finished")
		}
		res, err := w.Checkpoint(workspace.CheckpointOptions{Message: "second", Ctx: vcstest.CancelAfter(n)})
		if err == nil {
			if head, _ := store.ReadRef(ref); head != res.Commit || head == first.Commit {
				t.Fatalf("finished checkpoint: ref at %s, want the new %s", head.Short(), res.Commit.Short())
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted at check %d: %v, want context.Canceled", n, err)
		}
		interrupted++
		after := wstest.TreeFiles(t, dir)
		if left := wstest.Leftovers(after); len(left) > 0 {
			t.Fatalf("interrupted at check %d: left %v", n, left)
		}
		if !maps.Equal(after, before) {
			for p := range maps.Keys(after) {
				if after[p] != before[p] {
					t.Errorf("interrupted at check %d: %s changed", n, p)
				}
			}
			t.Fatalf("interrupted at check %d: files changed", n)
		}
	}
	if interrupted < 40 {
		t.Fatalf("only %d interruption points: the walk and hashing are not checked per directory and file", interrupted)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling")
}

// Issue 17 item 6: Ctrl-C while another process holds the workspace lock
// ends the wait at once, not after lock.timeout, and leaves the holder's
// lock alone.
func TestLockWaitCancelled(t *testing.T) {
	dir := realpath(t, t.TempDir())
	w := openWS(t, dir)
	held, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	lockData, err := os.ReadFile(w.LocalPath("lock"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = openWS(t, dir).Checkpoint(workspace.CheckpointOptions{Ctx: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("checkpoint waiting for the lock = %v, want context.Canceled", err)
	}
	if took, timeout := time.Since(start), time.Duration(w.Config.Lock.Timeout); took > timeout/2 {
		t.Fatalf("the wait ended after %v (lock.timeout %v)", took, timeout)
	}
	if after, _ := os.ReadFile(w.LocalPath("lock")); string(after) != string(lockData) {
		t.Fatalf("the holder's lock changed: %q", after)
	}
}
