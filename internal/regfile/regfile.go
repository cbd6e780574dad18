// Package regfile reads files as regular files only. Every file ctxgit
// reads from a workspace or its own directories could have been replaced by
// a symlink (leaking its target), a FIFO (hanging the reader) or a file on
// a pseudo file system that reports size 0 and never ends (/proc/kmsg), so
// a read here never follows a symlink, never blocks on an open, and never
// reads past the size fstat reported when the file was opened (issue 13).
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is returned for a symlink, FIFO, socket, device or
// directory where a regular file was expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by ReadFile for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// Info is the stat data of an opened file, from fstat on the descriptor
// that is read, so it describes the very file whose bytes are returned.
type Info struct {
	Size  int64
	Mtime int64  // ns
	Ctime int64  // ns; 0 where the system has no change time
	Ino   uint64 // 0 where the system has no inode number
	Exec  bool   // owner-executable
}

// File is an opened regular file that reads at most Info().Size bytes.
type File struct {
	h      handle
	info   Info
	remain int64
}

// Open opens path for reading, refusing anything but a regular file and
// never following a final symlink.
func Open(path string) (*File, error) { return openFile(path, false) }

// OpenFollowing is Open for a file a user may keep behind a symlink
// (core.excludesFile, as git follows it): the final symlink is followed,
// and what it reaches must still be a regular file.
func OpenFollowing(path string) (*File, error) { return openFile(path, true) }

func openFile(path string, follow bool) (*File, error) {
	h, info, err := open(path, follow)
	if err != nil {
		return nil, err
	}
	return &File{h: h, info: info, remain: info.Size}, nil
}

// Info is the file's stat data at open.
func (f *File) Info() Info { return f.info }

// Read reads from the file and reports io.EOF once the size seen at open
// has been read, however much more the file holds now.
func (f *File) Read(p []byte) (int, error) {
	if f.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > f.remain {
		p = p[:f.remain]
	}
	n, err := f.h.read(p)
	f.remain -= int64(n)
	if n == 0 && err == nil {
		err = io.EOF // the file shrank
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.h.close() }

// ReadFile reads a whole regular file of at most limit bytes: a larger one
// is ErrTooLarge, never read. A file that shrank while read gives the
// bytes it still had.
func ReadFile(path string, limit int64) ([]byte, error) { return readFile(path, limit, false) }

// ReadFileFollowing is ReadFile through a final symlink (see
// OpenFollowing).
func ReadFileFollowing(path string, limit int64) ([]byte, error) {
	return readFile(path, limit, true)
}

func readFile(path string, limit int64, follow bool) ([]byte, error) {
	f, err := openFile(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := f.ReadAll(limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, err
}

// ReadAll reads the whole file, as it was when opened, if that is at most
// limit bytes: a larger one is ErrTooLarge, never read. A file that shrank
// while read gives the bytes it still had.
func (f *File) ReadAll(limit int64) ([]byte, error) {
	if f.info.Size > limit {
		return nil, fmt.Errorf("%w (%d bytes, at most %d read)", ErrTooLarge, f.info.Size, limit)
	}
	buf := make([]byte, f.info.Size)
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// ReadTail reads at most the last n bytes of a regular file, which may
// have grown without bound (a log), never following a final symlink.
func ReadTail(path string, n int64) ([]byte, error) { return readTail(path, n, false) }

// ReadTailFollowing is ReadTail through a final symlink: a file another
// program names for ctxgit to append to (a host's env file) may be a link.
func ReadTailFollowing(path string, n int64) ([]byte, error) { return readTail(path, n, true) }

func readTail(path string, n int64, follow bool) ([]byte, error) {
	f, err := openFile(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if skip := f.info.Size - n; skip > 0 {
		if err := f.h.seek(skip); err != nil {
			return nil, err
		}
		f.remain = n
	}
	buf := make([]byte, f.remain)
	got, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:got], err
}

// OpenFile opens a regular file for writing with flag (os.O_* flags, say
// os.O_RDWR|os.O_CREATE) and, when it is created, perm. A symbolic link in
// its place, dangling or not, is refused (ErrNotRegular) and nothing is
// created through it; so is a FIFO or a device, without blocking.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return openWrite(path, flag, perm, false)
}

// OpenAppend is OpenFile for appending, creating the file with perm.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	return OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

// OpenAppendFollowing is OpenAppend for a file another program names for
// ctxgit to append to (a host's env file), which may be a link: the final
// link is followed, and what it reaches must still be a regular file.
func OpenAppendFollowing(path string, perm fs.FileMode) (*os.File, error) {
	return openWrite(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm, true)
}
