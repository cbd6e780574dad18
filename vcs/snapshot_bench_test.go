package vcs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// benchWorkspace writes n files of about 3 KB in n/20 directories.
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 70)
	for i := range n {
		p := filepath.Join(dir, "src", fmt.Sprintf("d%03d", i%(n/20)), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "%d %s", i, line), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func snapshotAndCommit(b *testing.B, s *vcs.GitStore, dir, cache string) *vcs.SnapshotResult {
	p, err := vcs.NewPending(s)
	if err != nil {
		b.Fatal(err)
	}
	res, err := vcs.Snapshot(p, vcs.SnapshotOptions{Root: dir, StatCache: cache, StoreKey: s.CommonDir(),
		Start: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	sig := vcs.Signature{Name: "b", Email: "b@b", When: time.Unix(0, 0)}
	c, _ := vcs.WriteCommit(p, &vcs.Commit{Tree: res.Tree, Author: sig, Committer: sig, Message: "b\n"})
	if err := p.Flush(c); err != nil {
		b.Fatal(err)
	}
	if err := res.SaveCache(s, c); err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkSnapshot measures a snapshot of 2,000 files: the first (every
// file hashed and packed), one with nothing changed (stat cache hits), and
// one with 5 files changed. scripts/bench-snapshot.sh compares whole
// processes with git's plumbing at 10,000 files.
func BenchmarkSnapshot(b *testing.B) {
	const n = 2000
	b.Run("first", func(b *testing.B) {
		dir := benchWorkspace(b, n)
		b.ResetTimer()
		for range b.N {
			b.StopTimer()
			store := filepath.Join(b.TempDir(), "store.git")
			s, err := vcs.InitPrivate(store)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			snapshotAndCommit(b, s, dir, filepath.Join(store, "statcache"))
		}
	})
	b.Run("noop", func(b *testing.B) {
		dir := benchWorkspace(b, n)
		store := filepath.Join(b.TempDir(), "store.git")
		s, _ := vcs.InitPrivate(store)
		cache := filepath.Join(store, "statcache")
		snapshotAndCommit(b, s, dir, cache)
		b.ResetTimer()
		for range b.N {
			if res := snapshotAndCommit(b, s, dir, cache); res.Hashed != 0 {
				b.Fatalf("no-op snapshot hashed %d files", res.Hashed)
			}
		}
	})
	b.Run("five-changed", func(b *testing.B) {
		dir := benchWorkspace(b, n)
		store := filepath.Join(b.TempDir(), "store.git")
		s, _ := vcs.InitPrivate(store)
		cache := filepath.Join(store, "statcache")
		snapshotAndCommit(b, s, dir, cache)
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			for j := range 5 {
				p := filepath.Join(dir, "src", fmt.Sprintf("d%03d", j), fmt.Sprintf("f%05d.go", j))
				os.WriteFile(p, fmt.Appendf(nil, "changed %d %d", i, j), 0o644)
				os.Chtimes(p, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
			}
			b.StartTimer()
			if res := snapshotAndCommit(b, s, dir, cache); res.Hashed != 5 {
				b.Fatalf("hashed %d files, want 5", res.Hashed)
			}
		}
	})
}
