//go:build linux || darwin

package vcs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"golang.org/x/sys/unix"
)

// A file the walk saw as regular but that is a FIFO when it is read (it
// was swapped in between) is left out at once, not read forever.
func TestStoreFileRefusesFIFOSwappedIn(t *testing.T) {
	root := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(root, "f"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &walker{opts: SnapshotOptions{Root: root}, res: &SnapshotResult{}}
	n := &snapNode{name: "f", parent: &snapNode{isDir: true, dir: &snapDir{}}, pending: true}
	done := make(chan error, 1)
	go func() {
		_, _, skip, err := w.storeFile(NewMemStore(), n)
		if err != nil {
			skip = err
		}
		done <- skip
	}()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Fatalf("err = %v, want the FIFO refused as not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO swapped in for a file blocked")
	}
}

// A file that grew after the walk is read to the size fstat reports on
// the opened file, and the node keeps that size for the stat cache.
func TestStoreFileReadsTheOpenedSize(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f"), []byte("hello"), 0o644)
	w := &walker{opts: SnapshotOptions{Root: root}, res: &SnapshotResult{}}
	n := &snapNode{name: "f", parent: &snapNode{isDir: true, dir: &snapDir{}}, pending: true, st: statEntry{size: 2}}
	id, size, skip, err := w.storeFile(NewMemStore(), n)
	if err != nil || skip != nil {
		t.Fatal(err, skip)
	}
	if size != 5 || n.st.size != 5 || id != HashObject(BlobObject, []byte("hello")) {
		t.Fatalf("size %d, node size %d, id %s", size, n.st.size, id)
	}
}

// A file that grew past max_file_size after the walk is left out as too
// large, from the opened file's size, unread.
func TestStoreFileChecksTheCapAtOpen(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f"), make([]byte, 100), 0o644)
	w := &walker{opts: SnapshotOptions{Root: root, MaxFileSize: 10}, res: &SnapshotResult{}}
	n := &snapNode{name: "f", parent: &snapNode{isDir: true, dir: &snapDir{}}, pending: true}
	if _, _, skip, err := w.storeFile(NewMemStore(), n); err != nil || skip != nil || !n.dropped {
		t.Fatalf("err %v, skip %v, dropped %v; want left out", err, skip, n.dropped)
	}
	if len(w.res.TooLarge) != 1 {
		t.Fatalf("TooLarge = %v", w.res.TooLarge)
	}
}
