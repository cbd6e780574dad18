//go:build !linux && !darwin

package regfile

import (
	"errors"
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

// openWrite opens a regular file for writing, creating it (with
// os.O_CREATE) with perm.
// What is there is checked first (without follow, by Lstat: a symlink or
// junction is refused) and must be the very file opened; a missing file is
// created exclusively, which follows no link (Go opens it with
// FILE_FLAG_OPEN_REPARSE_POINT on Windows).
func openWrite(path string, flag int, perm fs.FileMode, follow bool) (*os.File, error) {
	if flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL {
		return os.OpenFile(path, flag, perm) // an exclusive create follows nothing
	}
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	before, err := stat(path)
	if errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0 {
		f, cerr := os.OpenFile(path, flag|os.O_EXCL, perm)
		if cerr == nil {
			return f, nil
		}
		if !errors.Is(cerr, fs.ErrExist) {
			return nil, cerr
		}
		before, err = stat(path) // made meanwhile, or a dangling link
	}
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.OpenFile(path, flag&^(os.O_CREATE|os.O_EXCL), 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}
