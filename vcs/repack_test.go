package vcs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/vcs"
)

// chain writes n commits, each adding a file, and returns their ids
// newest first. Each commit's tree holds every file so far.
func chain(t *testing.T, s vcs.Store, tag string, n int) []vcs.Hash {
	t.Helper()
	var entries []vcs.TreeEntry
	var ids []vcs.Hash
	parent := vcs.ZeroHash
	for i := range n {
		blob, err := s.WriteObject(vcs.BlobObject, fmt.Appendf(nil, "%s file %d\n", tag, i))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, vcs.TreeEntry{Name: fmt.Sprintf("f%03d", i), Mode: vcs.ModeFile, ID: blob})
		tree, err := vcs.WriteTree(s, append([]vcs.TreeEntry(nil), entries...))
		if err != nil {
			t.Fatal(err)
		}
		sig := vcs.Signature{Name: "ctxgit", Email: "ctxgit@localhost", When: time.Date(2026, 11, 22, 10, i, 0, 0, time.UTC)}
		c := &vcs.Commit{Tree: tree, Author: sig, Committer: sig,
			Message: fmt.Sprintf("checkpoint cp_%03d (manual)\n\nCtxgit-Session: %s\nCtxgit-Checkpoint: cp_%03d\n", i+1, tag, i+1)}
		if !parent.IsZero() {
			c.Parents = []vcs.Hash{parent}
		}
		if parent, err = vcs.WriteCommit(s, c); err != nil {
			t.Fatal(err)
		}
		ids = append([]vcs.Hash{parent}, ids...)
	}
	return ids
}

func newPrivate(t *testing.T) (*vcs.GitStore, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store.git")
	s, err := vcs.InitPrivate(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// SPEC §14.2: re-parenting keeps every byte but the parent lines.
func TestReparent(t *testing.T) {
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"parent 1111111111111111111111111111111111111111\n" +
		"author  Odd  Spacing <a@b> 1795341600 +0130\n" +
		"committer C <c@d> 1795341601 -0700\n" +
		"x-extra keep me\n" +
		"\n" +
		"checkpoint cp_002 (manual): t\n\nbody\n\nCtxgit-Session: s\nCtxgit-Checkpoint: cp_002\n"
	p := vcs.Hash{0x22}
	got, err := vcs.Reparent([]byte(raw), p)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(raw, "parent 1111111111111111111111111111111111111111", "parent "+p.String(), 1)
	if string(got) != want {
		t.Fatalf("Reparent:\n%s\nwant\n%s", got, want)
	}
	root, err := vcs.Reparent([]byte(raw), vcs.ZeroHash)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(raw, "parent 1111111111111111111111111111111111111111\n", "", 1); string(root) != want {
		t.Fatalf("Reparent to none:\n%s", root)
	}
	for _, bad := range []string{"", "tree x", "author a\n\nmsg"} {
		if _, err := vcs.Reparent([]byte(bad), p); err == nil {
			t.Errorf("Reparent(%q) = nil error", bad)
		}
	}
}

// SPEC §14.2: a rewritten chain keeps trees, messages and dates; only the
// oldest kept commit loses its parent.
func TestRewriteChain(t *testing.T) {
	s := vcs.NewMemStore()
	ids := chain(t, s, "a", 5)
	b, _ := s.NewBatch()
	head, mapping, err := vcs.RewriteChain(s, b, ids[:3])
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(mapping) != 3 {
		t.Fatalf("mapping has %d entries", len(mapping))
	}
	id := head
	for i := 0; i < 3; i++ {
		if mapping[ids[i]] != id {
			t.Fatalf("mapping[%d] = %s, walking gives %s", i, mapping[ids[i]].Short(), id.Short())
		}
		got, _ := vcs.ReadCommit(s, id)
		old, _ := vcs.ReadCommit(s, ids[i])
		if got.Tree != old.Tree || got.Message != old.Message || !got.Author.When.Equal(old.Author.When) || !got.Committer.When.Equal(old.Committer.When) {
			t.Fatalf("commit %d changed: %+v vs %+v", i, got, old)
		}
		switch {
		case i < 2 && len(got.Parents) != 1:
			t.Fatalf("commit %d has parents %v", i, got.Parents)
		case i == 2 && len(got.Parents) != 0:
			t.Fatalf("the oldest kept commit still has parents %v", got.Parents)
		}
		if i < 2 {
			id = got.Parents[0]
		}
	}
	// A chain that was already whole (its oldest has no parent) comes back
	// with the same ids.
	b2, _ := s.NewBatch()
	same, _, err := vcs.RewriteChain(s, b2, ids)
	b2.Commit()
	if err != nil || same != ids[0] {
		t.Fatalf("rewriting a whole chain gave %s, %v; want %s", same.Short(), err, ids[0].Short())
	}
}

// WalkReachable names a missing object and the one that refers to it.
func TestWalkReachableMissing(t *testing.T) {
	s := vcs.NewMemStore()
	missing := vcs.HashObject(vcs.BlobObject, []byte("never written"))
	tree, _ := vcs.WriteTree(s, []vcs.TreeEntry{{Name: "gone.txt", Mode: vcs.ModeFile, ID: missing},
		{Name: "sub", Mode: vcs.ModeGitlink, ID: vcs.Hash{9}}})
	sig := vcs.Signature{Name: "a", Email: "b", When: time.Unix(0, 0).UTC()}
	c, _ := vcs.WriteCommit(s, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: "m\n"})
	n := 0
	err := vcs.WalkReachable(s, []vcs.Hash{c}, nil, func(vcs.Hash, vcs.ObjectType, []byte) error { n++; return nil })
	if !errors.Is(err, vcs.ErrObjectNotFound) || !strings.Contains(err.Error(), "blob "+missing.Short()+" (gone.txt in tree "+tree.Short()+")") {
		t.Fatalf("walk = %v", err)
	}
	// The gitlink is not followed: its commit lives elsewhere.
	seen := map[vcs.Hash]bool{}
	good, _ := vcs.WriteTree(s, []vcs.TreeEntry{{Name: "sub", Mode: vcs.ModeGitlink, ID: vcs.Hash{9}}})
	if err := vcs.WalkReachable(s, []vcs.Hash{good}, seen, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil }); err != nil || len(seen) != 1 {
		t.Fatalf("walk over a gitlink = %v, seen %d", err, len(seen))
	}
	// A commit whose parent is missing names the commit.
	c2, _ := vcs.WriteCommit(s, &vcs.Commit{Tree: good, Parents: []vcs.Hash{{7}}, Author: sig, Committer: sig, Message: "m\n"})
	err = vcs.WalkReachable(s, []vcs.Hash{c2}, nil, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "(parent of commit "+c2.Short()+")") {
		t.Fatalf("walk with a missing parent = %v", err)
	}
}

// SPEC §14.4: the private store is repacked whole: one pack holding what
// refs reach; every other object and pack is gone; git agrees.
func TestRepackAllPrivate(t *testing.T) {
	s, dir := newPrivate(t)
	ids := chain(t, s, "a", 6)
	// A big batch: a pack, half of it unreachable afterwards.
	b, _ := s.NewBatch()
	var kept []vcs.TreeEntry
	for i := range 300 {
		h, _ := b.Add(vcs.BlobObject, fmt.Appendf(nil, "packed %d\n", i))
		if i%2 == 0 {
			kept = append(kept, vcs.TreeEntry{Name: fmt.Sprintf("p%03d", i), Mode: vcs.ModeFile, ID: h})
		}
	}
	b.Commit()
	tree, _ := vcs.WriteTree(s, kept)
	sig := vcs.Signature{Name: "ctxgit", Email: "ctxgit@localhost", When: time.Unix(1795341600, 0).UTC()}
	other, _ := vcs.WriteCommit(s, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: "other\n"})
	stray, _ := s.WriteObject(vcs.BlobObject, []byte("unreachable"))
	// Trim the chain to 3 by rewriting, as prune does.
	b2, _ := s.NewBatch()
	head, _, err := vcs.RewriteChain(s, b2, ids[:3])
	if err != nil {
		t.Fatal(err)
	}
	b2.Commit()
	must(t, s.UpdateRef("refs/ctxgit/sessions/a", head, vcs.ZeroHash))
	must(t, s.UpdateRef("refs/ctxgit/sessions/b", other, vcs.ZeroHash))
	// Everything so far was written long ago: unreachable objects are
	// garbage only past the grace period.
	ageFiles(t, filepath.Join(dir, "objects"), 2*time.Hour)
	// Temporary files (issue 13 item 13): in a private store (only ctxgit
	// writes it) a tmp_ name without a pid older than an hour goes, and
	// ctxgit's whose writer is no longer running; a fresh one, and
	// ctxgit's whose writer runs, may belong to a live writer and stay.
	deadPID := wstest.ExitedPID(t)
	old := filepath.Join(dir, "objects", "pack", "tmp_pack_old")
	fresh := filepath.Join(dir, "objects", "pack", "tmp_pack_fresh")
	killed := filepath.Join(dir, "objects", "ab", fmt.Sprintf("tmp_obj_ctxgit_%d_123", deadPID))
	running := filepath.Join(dir, "objects", "pack", fmt.Sprintf("tmp_pack_ctxgit_%d_456", os.Getpid()))
	os.MkdirAll(filepath.Dir(killed), 0o755)
	for _, f := range []string{old, fresh, killed, running} {
		os.WriteFile(f, []byte("x"), 0o644)
		if f != fresh {
			os.Chtimes(f, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))
		}
	}

	res, err := s.Repack(context.Background(), vcs.RepackAll, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.RemovedPacks != 1 || res.RemovedLoose == 0 || res.Packed != res.Reachable || res.Pack == "" || res.RemovedTemp != 2 {
		t.Fatalf("repack = %+v", res)
	}
	if res.Reclaimed() <= 0 {
		t.Fatalf("nothing reclaimed: %+v", res)
	}
	out := gitCmd(t, dir, "--git-dir="+dir, "count-objects", "-v")
	if !strings.Contains(out, "count: 0\n") || !strings.Contains(out, "packs: 1\n") || !strings.Contains(out, fmt.Sprintf("in-pack: %d\n", res.Reachable)) {
		t.Fatalf("count-objects after repack:\n%s", out)
	}
	gitCmd(t, dir, "--git-dir="+dir, "fsck", "--strict", "--no-dangling", "--full")
	for _, h := range []vcs.Hash{stray, ids[4], ids[5]} {
		if ok, _ := s.HasObject(h); ok {
			t.Errorf("unreachable %s survived", h.Short())
		}
	}
	for _, f := range []string{old, killed} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s survived", filepath.Base(f))
		}
	}
	for _, f := range []string{fresh, running} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed", filepath.Base(f))
		}
	}
	// The same store object reads everything reachable afterwards.
	if err := vcs.WalkReachable(s, []vcs.Hash{head, other}, nil, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// A second repack changes nothing but the pack's name staying.
	res2, err := s.Repack(context.Background(), vcs.RepackAll, nil)
	if err != nil || res2.RemovedLoose != 0 || res2.Pack != res.Pack || res2.RemovedPacks != 0 {
		t.Fatalf("second repack = %+v, %v", res2, err)
	}
	gitCmd(t, dir, "--git-dir="+dir, "fsck", "--strict", "--no-dangling", "--full")
}

// SPEC §14.4: what any ref, a detached HEAD or a reflog names is kept in
// a full repack; packs marked .keep are left alone.
func TestRepackAllKeepsEveryRoot(t *testing.T) {
	s, dir := newPrivate(t)
	byTag := chain(t, s, "tag", 1)[0]
	byHead := chain(t, s, "head", 1)[0]
	byLog := chain(t, s, "log", 1)[0]
	must(t, os.WriteFile(filepath.Join(dir, "refs", "tags", "v1"), []byte(byTag.String()+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte(byHead.String()+"\n"), 0o644))
	os.MkdirAll(filepath.Join(dir, "logs", "refs", "heads"), 0o755)
	must(t, os.WriteFile(filepath.Join(dir, "logs", "refs", "heads", "gone"),
		[]byte(vcs.ZeroHash.String()+" "+byLog.String()+" t <t@t> 1795341600 +0000\tcommit: x\n"), 0o644))
	// A kept pack's objects are neither copied nor removed.
	b, _ := s.NewBatch()
	for i := range 150 {
		b.Add(vcs.BlobObject, fmt.Appendf(nil, "kept pack %d\n", i))
	}
	b.Commit()
	idx := mustGlob(t, filepath.Join(dir, "objects", "pack", "*.idx"))
	keep := strings.TrimSuffix(idx, ".idx") + ".keep"
	os.WriteFile(keep, nil, 0o644)

	if _, err := s.Repack(context.Background(), vcs.RepackAll, nil); err != nil {
		t.Fatal(err)
	}
	for _, h := range []vcs.Hash{byTag, byHead, byLog} {
		if err := vcs.WalkReachable(s, []vcs.Hash{h}, nil, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil }); err != nil {
			t.Errorf("root %s lost: %v", h.Short(), err)
		}
	}
	if _, err := os.Stat(idx); err != nil {
		t.Error("a .keep pack was removed")
	}
	gitCmd(t, dir, "--git-dir="+dir, "fsck", "--strict", "--no-dangling")
}

// SPEC §14.4: in a user's repository only loose objects refs/ctxgit reach
// are touched, and only once they are packed; the user's loose objects
// and unreachable ctxgit objects stay for git gc.
func TestRepackLooseShared(t *testing.T) {
	repo := newGitRepo(t)
	os.WriteFile(filepath.Join(repo, "user.txt"), []byte("the user's file\n"), 0o644)
	gitCmd(t, repo, "add", "user.txt")
	gitCmd(t, repo, "commit", "-qm", "user commit")
	os.WriteFile(filepath.Join(repo, "staged.txt"), []byte("staged only\n"), 0o644)
	gitCmd(t, repo, "add", "staged.txt")
	userLoose, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "??", "*"))
	if len(userLoose) < 4 {
		t.Fatalf("git wrote %d loose objects; the test proves nothing", len(userLoose))
	}

	s := openRepo(t, repo)
	ids := chain(t, s, "x", 4)
	must(t, s.UpdateRef("refs/ctxgit/sessions/x", ids[0], vcs.ZeroHash))
	stray, _ := s.WriteObject(vcs.BlobObject, []byte("unreachable ctxgit blob"))
	before, _, _ := s.LooseObjects()

	res, err := s.Repack(context.Background(), vcs.RepackLoose, []vcs.Hash{ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packed != res.Reachable || res.RemovedLoose != res.Reachable || res.RemovedPacks != 0 {
		t.Fatalf("repack = %+v", res)
	}
	after, _, _ := s.LooseObjects()
	if after != before-res.RemovedLoose {
		t.Fatalf("loose %d → %d, removed %d", before, after, res.RemovedLoose)
	}
	if !s.IsLoose(stray) {
		t.Error("an unreachable loose object was removed from a shared repository")
	}
	// The user's objects are exactly as loose as before.
	for _, p := range userLoose {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the user's loose object %s was removed", p)
		}
	}
	for _, obj := range []string{"HEAD", "HEAD:user.txt", ":staged.txt"} {
		gitCmd(t, repo, "cat-file", "-e", obj)
	}
	gitCmd(t, repo, "fsck", "--strict", "--no-dangling", "--full")
	if out := gitCmd(t, repo, "log", "--format=%s", "refs/ctxgit/sessions/x"); strings.Count(out, "checkpoint") != 4 {
		t.Fatalf("git log after repack:\n%s", out)
	}
	// Nothing loose to pack: no new pack.
	res2, err := s.Repack(context.Background(), vcs.RepackLoose, []vcs.Hash{ids[0]})
	if err != nil || res2.Pack != "" || res2.RemovedLoose != 0 {
		t.Fatalf("second repack = %+v, %v", res2, err)
	}
}

// SPEC §14.4: a missing object stops a repack before anything is deleted.
func TestRepackStopsOnMissingObject(t *testing.T) {
	for _, mode := range []vcs.RepackMode{vcs.RepackAll, vcs.RepackLoose} {
		s, dir := newPrivate(t)
		ids := chain(t, s, "m", 3)
		must(t, s.UpdateRef("refs/ctxgit/sessions/m", ids[0], vcs.ZeroHash))
		stray, _ := s.WriteObject(vcs.BlobObject, []byte("unreachable"))
		gone := vcs.HashObject(vcs.BlobObject, []byte("m file 0\n"))
		p := filepath.Join(dir, "objects", gone.String()[:2], gone.String()[2:])
		must(t, os.Remove(p))
		before, _, _ := s.LooseObjects()
		_, err := s.Repack(context.Background(), mode, []vcs.Hash{ids[0]})
		if !errors.Is(err, vcs.ErrObjectNotFound) || !strings.Contains(err.Error(), gone.Short()) {
			t.Fatalf("mode %d: repack over a missing blob = %v", mode, err)
		}
		after, _, _ := s.LooseObjects()
		packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*"))
		if after != before || len(packs) != 0 || !s.IsLoose(stray) {
			t.Fatalf("mode %d: a failed repack changed the store: loose %d → %d, packs %v", mode, before, after, packs)
		}
	}
}

// A full repack refuses to guess around a ref it cannot read.
func TestRepackAllCorruptRef(t *testing.T) {
	s, dir := newPrivate(t)
	ids := chain(t, s, "c", 1)
	must(t, s.UpdateRef("refs/ctxgit/sessions/c", ids[0], vcs.ZeroHash))
	os.WriteFile(filepath.Join(dir, "refs", "heads", "bad"), []byte("garbage\n"), 0o644)
	if _, err := s.Repack(context.Background(), vcs.RepackAll, nil); !errors.Is(err, vcs.ErrCorrupt) {
		t.Fatalf("repack with a corrupt ref = %v", err)
	}
	if !s.IsLoose(ids[0]) {
		t.Fatal("objects were removed")
	}
}

// docs/cli.md#doctor: ScanRefs names each bad ref and still lists the good ones;
// stale ref locks are found and removed, fresh ones are not.
func TestScanRefsAndLocks(t *testing.T) {
	s, dir := newPrivate(t)
	ids := chain(t, s, "s", 1)
	must(t, s.UpdateRef("refs/ctxgit/sessions/good", ids[0], vcs.ZeroHash))
	bad := filepath.Join(dir, "refs", "ctxgit", "sessions", "bad")
	os.WriteFile(bad, []byte("garbage\n"), 0o644)
	refs, problems := s.ScanRefs("refs/ctxgit/")
	if len(refs) != 1 || refs[0].Name != "refs/ctxgit/sessions/good" {
		t.Fatalf("refs = %v", refs)
	}
	if len(problems) != 1 || !errors.Is(problems[0], vcs.ErrCorrupt) || !strings.Contains(problems[0].Error(), `corrupt ref file ("garbage")`) {
		t.Fatalf("problems = %v", problems)
	}

	staleLock := filepath.Join(dir, "refs", "ctxgit", "sessions", "good.lock")
	freshLock := filepath.Join(dir, "packed-refs.lock")
	os.WriteFile(staleLock, nil, 0o644)
	os.WriteFile(freshLock, nil, 0o644)
	os.Chtimes(staleLock, time.Now().Add(-time.Minute), time.Now().Add(-time.Minute))
	locks, err := s.RefLocks("refs/ctxgit/")
	if err != nil || len(locks) != 2 {
		t.Fatalf("locks = %v, %v", locks, err)
	}
	for _, l := range locks {
		if l.Stale() != (l.Path == staleLock) {
			t.Errorf("%s: Stale() = %v", l.Path, l.Stale())
		}
		if removed := s.RemoveStaleRefLock(l.Path); removed != l.Stale() {
			t.Errorf("%s: removed = %v", l.Path, removed)
		}
	}
	if _, err := os.Stat(freshLock); err != nil {
		t.Error("a fresh lock was removed")
	}
	if s.RemoveStaleRefLock("/etc/passwd.lock") {
		t.Error("removed a file outside the store")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// ageFiles dates every file under dir back by d.
func ageFiles(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	when := time.Now().Add(-d)
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chtimes(p, when, when)
		}
		return nil
	})
}

// SPEC §14.4: an object no ref reaches yet may be a transfer's in flight
// (fetch writes objects, then moves its refs without the workspace lock):
// a full repack keeps it until it is an hour old.
func TestRepackKeepsRecentUnreachable(t *testing.T) {
	s, dir := newPrivate(t)
	chain(t, s, "a", 3)
	inflight, err := s.WriteObject(vcs.BlobObject, []byte("fetched, ref not yet moved\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Repack(context.Background(), vcs.RepackAll, nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HasObject(inflight); !ok {
		t.Fatal("a full repack deleted an object written a moment ago")
	}
	ageFiles(t, filepath.Join(dir, "objects"), 2*time.Hour)
	if _, err := s.Repack(context.Background(), vcs.RepackAll, nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HasObject(inflight); ok {
		t.Fatal("an unreachable object two hours old was kept")
	}
}
