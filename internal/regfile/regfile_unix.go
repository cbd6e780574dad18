//go:build linux || darwin

package regfile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// handle is a raw descriptor: an *os.File would register it with the
// runtime's poller, system calls a regular file never needs.
type handle struct{ fd int }

func open(path string, follow bool) (handle, Info, error) {
	return openAt(unix.AT_FDCWD, path, follow)
}

// OpenAt is Open for name relative to the open directory dirfd: the
// kernel resolves one name, not a whole path (a snapshot reads the files
// of the directory it is walking).
func OpenAt(dirfd int, name string) (*File, error) {
	h, info, err := openAt(dirfd, name, false)
	if err != nil {
		return nil, err
	}
	return &File{h: h, info: info, remain: info.Size}, nil
}

func openAt(dirfd int, path string, follow bool) (handle, Info, error) {
	// O_NONBLOCK: opening a FIFO with no writer returns at once (and is
	// then refused by the fstat below) rather than waiting forever.
	// O_NOFOLLOW: a final symlink fails with ELOOP.
	flags := unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(dirfd, path, flags, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ELOOP && !follow {
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return handle{}, Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return handle{fd}, infoOf(&st), nil
}

func (h handle) read(p []byte) (int, error) {
	for {
		n, err := unix.Read(h.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		return n, nil
	}
}

func (h handle) close() error { return unix.Close(h.fd) }

func (h handle) seek(off int64) error {
	_, err := unix.Seek(h.fd, off, 0)
	return err
}

// OpenAppend opens a regular file for appending, creating it with perm,
// following a final symlink. O_NONBLOCK keeps a FIFO in its place from
// hanging the open; it and any other non-regular file are refused.
func OpenAppend(path string, perm uint32) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ENXIO {
		// A FIFO with no reader: write-only non-blocking opens fail so.
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
