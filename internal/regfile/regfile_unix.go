//go:build linux || darwin

package regfile

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// handle is a raw descriptor: an *os.File would register it with the
// runtime's poller, system calls a regular file never needs.
type handle struct{ fd int }

func open(path string, follow bool) (handle, Info, error) {
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
		fd, err = unix.Open(path, flags, 0)
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
