package vcs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
)

// gitCmd runs the git CLI in dir with a clean, deterministic environment.
// Tests use git only to prove interoperability; ctxgit never runs it.
func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitRun(t, dir, nil, args...)
}

func gitRun(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	wstest.NeedGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newGitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	return dir
}

func TestGitStoreConformance(t *testing.T) {
	vcstest.Run(t, func(t *testing.T) vcs.Store {
		s, err := vcs.OpenGit(filepath.Join(newGitRepo(t), ".git"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// Whatever the suite wrote must be a valid repository to git.
			gitCmd(t, filepath.Dir(s.CommonDir()), "fsck", "--strict", "--no-dangling")
		})
		return s
	})
}

func TestPrivateStoreConformance(t *testing.T) {
	vcstest.Run(t, func(t *testing.T) vcs.Store {
		dir := filepath.Join(t.TempDir(), "store.git")
		s, err := vcs.InitPrivate(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gitCmd(t, dir, "--git-dir="+dir, "fsck", "--strict", "--no-dangling") })
		return s
	})
}

// A big batch lands as one pack that git can read, not as loose objects.
func TestBigBatchIsOnePack(t *testing.T) {
	repo := newGitRepo(t)
	s, err := vcs.OpenGit(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.NewBatch()
	var last vcs.Hash
	for i := range 500 {
		if last, err = b.Add(vcs.BlobObject, []byte(strings.Repeat("x", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	out := gitCmd(t, repo, "count-objects", "-v")
	if !strings.Contains(out, "count: 0\n") || !strings.Contains(out, "in-pack: 500\n") {
		t.Fatalf("count-objects:\n%s", out)
	}
	if got := gitCmd(t, repo, "cat-file", "-s", last.String()); strings.TrimSpace(got) != "499" {
		t.Fatalf("git cat-file -s = %q", got)
	}
	gitCmd(t, repo, "verify-pack", "-v", mustGlob(t, filepath.Join(repo, ".git/objects/pack/*.idx")))
}

func mustGlob(t *testing.T, pattern string) string {
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("glob %s = %v", pattern, m)
	}
	return m[0]
}

// Objects git wrote (packed by gc) and refs git packed are read back.
func TestReadsWhatGitWrote(t *testing.T) {
	repo := newGitRepo(t)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("alpha\n"), 0o644)
	gitCmd(t, repo, "add", "a.txt")
	gitCmd(t, repo, "commit", "-qm", "one")
	head := strings.TrimSpace(gitCmd(t, repo, "rev-parse", "HEAD"))
	gitCmd(t, repo, "update-ref", "refs/ctxgit/sessions/x", head)
	gitCmd(t, repo, "gc", "-q")
	s, err := vcs.OpenGit(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.ReadRef("refs/ctxgit/sessions/x")
	if err != nil || h.String() != head {
		t.Fatalf("packed ref = %s, %v", h, err)
	}
	c, err := vcs.ReadCommit(s, h)
	if err != nil {
		t.Fatal(err)
	}
	data, err := vcs.ReadFileAt(s, c.Tree, "a.txt")
	if err != nil || string(data) != "alpha\n" {
		t.Fatalf("a.txt = %q, %v", data, err)
	}
	// Updating a packed ref by compare-and-swap writes a loose one that wins.
	blob, _ := s.WriteObject(vcs.BlobObject, []byte("b"))
	if err := s.UpdateRef("refs/ctxgit/sessions/x", blob, h); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitCmd(t, repo, "rev-parse", "refs/ctxgit/sessions/x")); got != blob.String() {
		t.Fatalf("git sees %s", got)
	}
	// Deleting removes it from packed-refs too.
	if err := s.DeleteRef("refs/ctxgit/sessions/x", blob); err != nil {
		t.Fatal(err)
	}
	if out := gitCmd(t, repo, "for-each-ref", "refs/ctxgit/"); out != "" {
		t.Fatalf("ref survived deletion: %s", out)
	}
}

func TestRefusesSHA256AndReftable(t *testing.T) {
	for _, tc := range []struct{ name, config, want string }{
		{"sha256", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n", "sha256 object ids are not supported"},
		{"reftable", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = reftable\n", "reftable ref storage is not supported"},
		{"format-2", "[core]\n\trepositoryformatversion = 2\n", "repository format version 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".git")
			os.MkdirAll(filepath.Join(dir, "objects"), 0o755)
			os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "config"), []byte(tc.config), 0o644)
			_, err := vcs.OpenGit(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("OpenGit error = %v, want %q", err, tc.want)
			}
		})
	}
}

// A lock left by a live holder makes an update fail cleanly, leaving the ref
// and the lock as they were.
func TestHeldRefLock(t *testing.T) {
	t.Parallel() // it waits out a lock timeout
	repo := newGitRepo(t)
	s, _ := vcs.OpenGit(filepath.Join(repo, ".git"))
	blob, _ := s.WriteObject(vcs.BlobObject, []byte("x"))
	name := "refs/ctxgit/sessions/locked"
	if err := s.UpdateRef(name, blob, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(repo, ".git", name+".lock")
	os.WriteFile(lock, nil, 0o644)
	blob2, _ := s.WriteObject(vcs.BlobObject, []byte("y"))
	err := s.UpdateRef(name, blob2, blob)
	if err == nil || !strings.Contains(err.Error(), "another process holds the lock") {
		t.Fatalf("update under a held lock = %v", err)
	}
	if got, _ := s.ReadRef(name); got != blob {
		t.Fatalf("ref moved to %s", got)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatal("someone else's lock was removed")
	}
}

// SPEC §13: under the workspace lock, a session ref's lock file that
// outlasts the wait was left by a killed checkpoint and is taken over;
// outside the owned prefix it is still respected.
func TestOwnedRefLockTakenOver(t *testing.T) {
	t.Parallel() // it waits out lock timeouts
	repo := newGitRepo(t)
	s, _ := vcs.OpenGit(filepath.Join(repo, ".git"))
	blob, _ := s.WriteObject(vcs.BlobObject, []byte("x"))
	blob2, _ := s.WriteObject(vcs.BlobObject, []byte("y"))
	for _, name := range []string{"refs/ctxgit/sessions/killed", "refs/ctxgit/remotes/o/sessions/x"} {
		if err := s.UpdateRef(name, blob, vcs.ZeroHash); err != nil {
			t.Fatal(err)
		}
		lock := filepath.Join(repo, ".git", name+".lock")
		os.WriteFile(lock, nil, 0o644)
		old := time.Now().Add(-2 * time.Second)
		os.Chtimes(lock, old, old)
	}
	s.OwnRefLocks("refs/ctxgit/sessions/")
	if err := s.UpdateRef("refs/ctxgit/sessions/killed", blob2, blob); err != nil {
		t.Fatalf("an abandoned lock on an owned ref was not taken over: %v", err)
	}
	if err := s.UpdateRef("refs/ctxgit/remotes/o/sessions/x", blob2, blob); err == nil {
		t.Fatal("a lock outside the owned prefix was taken over")
	}
	s.OwnRefLocks("")
	os.WriteFile(filepath.Join(repo, ".git", "refs/ctxgit/sessions/killed.lock"), nil, 0o644)
	old := time.Now().Add(-2 * time.Second)
	os.Chtimes(filepath.Join(repo, ".git", "refs/ctxgit/sessions/killed.lock"), old, old)
	if err := s.UpdateRef("refs/ctxgit/sessions/killed", blob, blob2); err == nil {
		t.Fatal("a lock was taken over after OwnRefLocks(\"\")")
	}
}

func TestDiscoverLinkedWorktree(t *testing.T) {
	repo := newGitRepo(t)
	os.WriteFile(filepath.Join(repo, "f"), []byte("f"), 0o644)
	gitCmd(t, repo, "add", "f")
	gitCmd(t, repo, "commit", "-qm", "one")
	wt := filepath.Join(t.TempDir(), "wt")
	gitCmd(t, repo, "worktree", "add", "-q", wt)
	os.MkdirAll(filepath.Join(wt, "sub"), 0o755)
	info, err := vcs.Discover(filepath.Join(wt, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	if real(info.WorkTree) != real(wt) || real(info.CommonDir) != real(filepath.Join(repo, ".git")) || !strings.Contains(info.GitDir, "worktrees") {
		t.Fatalf("Discover = %+v", info)
	}
}

// HasObject answers from pack indexes of either version git writes.
func TestHasObjectInPacks(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		t.Run("idx-v"+version, func(t *testing.T) {
			repo := newGitRepo(t)
			for i := range 30 {
				os.WriteFile(filepath.Join(repo, fmt.Sprintf("f%02d", i)), fmt.Appendf(nil, "file %d\n", i), 0o644)
			}
			gitCmd(t, repo, "add", ".")
			gitCmd(t, repo, "commit", "-qm", "files")
			gitCmd(t, repo, "-c", "pack.indexVersion="+version, "repack", "-adq")
			gitCmd(t, repo, "prune-packed")
			s := openRepo(t, repo)
			for i := range 30 {
				h := vcs.HashObject(vcs.BlobObject, fmt.Appendf(nil, "file %d\n", i))
				if ok, err := s.HasObject(h); err != nil || !ok {
					t.Fatalf("packed blob %d: HasObject = %v, %v", i, ok, err)
				}
			}
			if ok, _ := s.HasObject(vcs.HashObject(vcs.BlobObject, []byte("absent"))); ok {
				t.Fatal("absent object reported present")
			}
		})
	}
}

// Objects git stored as deltas are read back whole (through go-git); whole
// packed objects are read directly.
func TestReadsDeltifiedObjects(t *testing.T) {
	repo := newGitRepo(t)
	big := strings.Repeat("line of a large file that git will deltify\n", 2000)
	var want []string
	for i := range 4 {
		content := big + fmt.Sprintf("version %d\n", i)
		want = append(want, content)
		os.WriteFile(filepath.Join(repo, "big.txt"), []byte(content), 0o644)
		gitCmd(t, repo, "add", "big.txt")
		gitCmd(t, repo, "commit", "-qm", fmt.Sprint("v", i))
	}
	gitCmd(t, repo, "gc", "-q", "--aggressive", "--prune=now")
	if out := gitCmd(t, repo, "verify-pack", "-v", mustGlob(t, filepath.Join(repo, ".git/objects/pack/*.idx"))); !strings.Contains(out, "chain length = 1") {
		t.Fatalf("git stored no deltas; the test proves nothing:\n%s", out)
	}
	s := openRepo(t, repo)
	for i, content := range want {
		data, err := vcs.ReadBlob(s, vcs.HashObject(vcs.BlobObject, []byte(content)))
		if err != nil || string(data) != content {
			t.Fatalf("version %d: %d bytes, %v", i, len(data), err)
		}
	}
}

// A damaged pack index is never read and never a panic: its objects are
// absent, and BadPacks names it.
func TestCorruptPackIndex(t *testing.T) {
	repo := newGitRepo(t)
	os.WriteFile(filepath.Join(repo, "f"), []byte("x"), 0o644)
	gitCmd(t, repo, "add", "f")
	gitCmd(t, repo, "commit", "-qm", "one")
	gitCmd(t, repo, "gc", "-q")
	idx := mustGlob(t, filepath.Join(repo, ".git/objects/pack/*.idx"))
	data, _ := os.ReadFile(idx)
	os.Chmod(idx, 0o644)
	// Fanout entries must not fall: make entry 10 exceed entry 11.
	copy(data[8+4*10:], []byte{0xff, 0xff, 0xff, 0xff})
	os.WriteFile(idx, data, 0o644)
	s := openRepo(t, repo)
	if ok, err := s.HasObject(vcs.HashObject(vcs.BlobObject, []byte("x"))); ok || err != nil {
		t.Fatalf("HasObject over a corrupt index = %v, %v; want absent", ok, err)
	}
	bad, err := s.BadPacks()
	if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), "corrupt pack index") {
		t.Fatalf("BadPacks = %v, %v", bad, err)
	}
}

// Issue 13 item 4: a truncated pack (its trailer no longer the one its
// index records) is not read, as git refuses it: its objects count as
// absent, so a write stores them again and they read back whole.
func TestTruncatedPackIsAbsent(t *testing.T) {
	for _, damage := range []struct {
		name string
		do   func(data []byte) []byte
	}{
		{"truncated", func(d []byte) []byte { return d[:len(d)-7] }},
		{"trailer changed", func(d []byte) []byte { d[len(d)-1] ^= 0xff; return d }},
		{"object count changed", func(d []byte) []byte { d[11]++; return d }},
		{"empty", func([]byte) []byte { return nil }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			repo := newGitRepo(t)
			content := strings.Repeat("packed content\n", 100)
			os.WriteFile(filepath.Join(repo, "f"), []byte(content), 0o644)
			gitCmd(t, repo, "add", "f")
			gitCmd(t, repo, "commit", "-qm", "one")
			gitCmd(t, repo, "gc", "-q")
			pack := mustGlob(t, filepath.Join(repo, ".git/objects/pack/*.pack"))
			data, _ := os.ReadFile(pack)
			os.Chmod(pack, 0o644)
			os.WriteFile(pack, damage.do(data), 0o644)
			h := vcs.HashObject(vcs.BlobObject, []byte(content))

			s := openRepo(t, repo)
			if ok, err := s.HasObject(h); ok || err != nil {
				t.Fatalf("HasObject in a damaged pack = %v, %v; want absent", ok, err)
			}
			bad, err := s.BadPacks()
			if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), filepath.Base(pack)) {
				t.Fatalf("BadPacks = %v, %v; want the pack named", bad, err)
			}
			if _, err := s.WriteObject(vcs.BlobObject, []byte(content)); err != nil {
				t.Fatal(err)
			}
			got, err := vcs.ReadBlob(openRepo(t, repo), h)
			if err != nil || string(got) != content {
				t.Fatalf("rewritten object reads %d bytes, %v", len(got), err)
			}
		})
	}
}

// A fan-out directory that a concurrent git gc removes (prune-packed
// rmdirs the ones it emptied) between MkdirAll and the temp file's
// creation is made again: TestAlongsideGit once failed on "open
// .git/objects/d5/tmp_obj_…: no such file or directory".
func TestObjectTempSurvivesRemovedFanoutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "objects", "d5")
	removals := 0
	vcs.SetAfterObjectDirMade(func(d string) {
		if removals < 3 {
			removals++
			os.Remove(d)
		}
	})
	defer vcs.SetAfterObjectDirMade(nil)
	f, err := vcs.CreateObjectTemp(dir)
	if err != nil {
		t.Fatalf("creating a temp object file beside a pruning gc: %v", err)
	}
	f.Close()
	if removals != 3 {
		t.Fatalf("the directory was removed %d times, want 3", removals)
	}
}
