//go:build linux || darwin

package vcs

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

var (
	errNotRegularIndex = errors.New("not a regular file")
	errIndexTooLarge   = errors.New("too large to map")
)

// mapFile maps a file read-only, as git maps pack indexes: a lookup then
// touches the fanout and the few pages its binary search visits, where
// reading the file first cost a 14 MB read and 3,500 page faults per
// checkpoint in a repository with a 500,000-object pack. The mapping is
// never unmapped: ctxgit lives for one command, and an index is mapped
// once per store. Git replaces packs and indexes by rename, never
// rewriting one in place, so the mapped bytes do not change under us.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "mmap", Path: path, Err: errNotRegularIndex}
	}
	if fi.Size() == 0 {
		return []byte{}, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return nil, &fs.PathError{Op: "mmap", Path: path, Err: errIndexTooLarge}
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return os.ReadFile(path) // a file system that cannot map
	}
	return data, nil
}
