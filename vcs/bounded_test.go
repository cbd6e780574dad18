package vcs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 13 item 1: a stat cache replaced by a 20 GB sparse file is
// refused from its size, without reading it: the snapshot rebuilds the
// cache and allocates nothing like the file's size.
func TestStatCacheHugeSparseFileIsNotRead(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"a.txt": "a"})
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	wstest.SparseFile(t, cache, 20<<30)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := snapshotOf(t, s, repo, cache, nil)
	runtime.ReadMemStats(&after)
	if !strings.Contains(res.CacheNote, "file too large") || res.Hashed != 1 {
		t.Fatalf("note %q, hashed %d; want the cache refused as too large", res.CacheNote, res.Hashed)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Fatalf("the snapshot allocated %d MB with a 20 GB stat cache", got>>20)
	}
}

// A stat cache replaced by a symlink is not followed: its target (here a
// file of the right format would be trusted) is never read.
func TestStatCacheSymlinkIsNotFollowed(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"a.txt": "a"})
	s := openRepo(t, repo)
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	snapshotOf(t, s, repo, real, nil)
	link := filepath.Join(dir, "link")
	wstest.Symlink(t, real, link)
	res := snapshotOf(t, s, repo, link, nil)
	if res.Hashed != 1 || !strings.Contains(res.CacheNote, "not a regular file") {
		t.Fatalf("through a symlink: hashed %d, note %q; want the cache refused", res.Hashed, res.CacheNote)
	}
}

// Issue 13 item 15: with no size limit, a large file is hashed and
// compressed as it is read. A 128 MB sparse file is checkpointed with a
// small fraction of its size allocated, and git reads the blob back.
func TestLargeFileIsStreamed(t *testing.T) {
	const size = 128 << 20
	repo := newGitRepo(t)
	s := openRepo(t, repo)
	f, err := os.Create(filepath.Join(repo, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("head"), 0)
	f.WriteAt([]byte("tail"), size-4)
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) { o.MaxFileSize = 0 })
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("checkpointing a %d MB file allocated %d MB; want it streamed", size>>20, got>>20)
	}
	e, err := vcs.Lookup(s, res.Tree, "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitCmd(t, repo, "cat-file", "-s", e.ID.String())); got != "134217728" {
		t.Fatalf("git cat-file -s = %s", got)
	}
	want := strings.TrimSpace(gitCmd(t, repo, "hash-object", "big.bin"))
	if e.ID.String() != want {
		t.Fatalf("blob %s, git hash-object says %s", e.ID, want)
	}
	gitCmd(t, repo, "fsck", "--strict")
}
