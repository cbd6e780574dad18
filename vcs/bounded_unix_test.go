//go:build linux || darwin

package vcs_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Issue 13 item 1: a stat cache replaced by a FIFO with no writer must not
// hang the checkpoint: it is refused and rebuilt.
func TestStatCacheFIFODoesNotHang(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"a.txt": "a"})
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	if err := unix.Mkfifo(cache, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		// The cache is not saved over a FIFO either (the rename replaces
		// it), which is fine: only the read could hang.
		res := snapshotOf(t, s, repo, cache, nil)
		done <- res.CacheNote
	}()
	select {
	case note := <-done:
		if !strings.Contains(note, "not a regular file") {
			t.Fatalf("note %q; want the FIFO refused", note)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a snapshot with a FIFO as its stat cache hung")
	}
}
