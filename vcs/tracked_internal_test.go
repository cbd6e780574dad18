package vcs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A decoded index's paths end at uint32 offsets: an index whose paths
// pass that bound (a version 4 index compresses their prefixes, so tens
// of megabytes of file reach it) is an error, not offsets that wrap.
// The bound is lowered here to the paths of a small index.
func TestIndexPathsPastTheirBound(t *testing.T) {
	repo := t.TempDir()
	indexGit(t, repo, "init", "-q")
	for _, name := range []string{"a.txt", "dir/b.txt", "dir/c.txt"} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indexGit(t, repo, "add", "-A")
	file := filepath.Join(repo, ".git", "index")
	same := func(s string) string { return s }

	paths, err := newTrackedIndex(file, false, 0, &trackedCache{}).loadFull(same)
	if err != nil || paths.Len() != 3 || !hasTracked(paths, "dir/c.txt", false) || !hasTracked(paths, "dir", true) {
		t.Fatalf("within the bound: %d paths, %v", paths.Len(), err)
	}

	defer func(old uint64) { maxIndexPathBytes = old }(maxIndexPathBytes)
	maxIndexPathBytes = uint64(len("a.txt") + len("dir/b.txt"))
	paths, err = newTrackedIndex(file, false, 0, &trackedCache{}).loadFull(same)
	if err == nil || !strings.Contains(err.Error(), "paths pass") || paths.Len() != 0 {
		t.Fatalf("past the bound: %d paths, %v; want an error and none", paths.Len(), err)
	}
}
