//go:build !linux && !darwin

package regfile

import (
	"io/fs"
	"os"
)

type handle struct{ f *os.File }

// open checks the path with Lstat, opens it, and checks that what was
// opened is the same regular file: a symlink or other file swapped in
// between is refused, not read.
func open(path string, follow bool) (handle, Info, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	before, err := stat(path)
	if err != nil {
		return handle{}, Info{}, err
	}
	if !before.Mode().IsRegular() {
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return handle{}, Info{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return handle{}, Info{}, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		f.Close()
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return handle{f}, Info{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Exec: fi.Mode()&0o100 != 0}, nil
}

func (h handle) read(p []byte) (int, error) {
	n, err := h.f.Read(p)
	if err != nil && n > 0 {
		err = nil
	}
	return n, err
}

func (h handle) close() error { return h.f.Close() }

func (h handle) seek(off int64) error {
	_, err := h.f.Seek(off, 0)
	return err
}

// OpenAppend opens a regular file for appending, creating it with perm,
// following a final symlink; anything else in its place is refused.
func OpenAppend(path string, perm uint32) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, os.FileMode(perm))
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}
