//go:build linux || darwin

package regfile

import (
	"io/fs"
	"os"
	"syscall"
)

// The package uses the standard library's syscall, not x/sys/unix, so the
// tool-call hook (cmd/ctxgit-hook, standard library only) can read its
// markers by the same rule (TestHookBinaryDeps).

// handle is a raw descriptor: an *os.File would register it with the
// runtime's poller, system calls a regular file never needs.
type handle struct{ fd int }

func open(path string, follow bool) (handle, Info, error) {
	// O_NONBLOCK: opening a FIFO with no writer returns at once (and is
	// then refused by the fstat below) rather than waiting forever.
	// O_NOFOLLOW: a final symlink fails with ELOOP.
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ELOOP && !follow {
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return handle{}, Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return handle{}, Info{}, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return handle{fd}, infoOf(&st), nil
}

// FromFD takes a descriptor its caller opened for reading as Open opens
// one (O_NOFOLLOW, O_NONBLOCK), relative to a directory it holds: the
// snapshot reads the files of the directory it walks that way, the
// kernel resolving one name, not a whole path. It is refused, and
// closed, unless fstat on it says regular file.
func FromFD(fd int) (*File, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "stat", Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Err: ErrNotRegular}
	}
	info := infoOf(&st)
	return &File{h: handle{fd}, info: info, remain: info.Size}, nil
}

func (h handle) read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(h.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		return n, nil
	}
}

func (h handle) close() error { return syscall.Close(h.fd) }

func (h handle) seek(off int64) error {
	_, err := syscall.Seek(h.fd, off, 0)
	return err
}

// openWrite opens a regular file for writing. O_NONBLOCK keeps a FIFO in
// its place from hanging the open; it and any other non-regular file are
// refused. Without follow, O_NOFOLLOW refuses a final symlink, dangling or
// not, before anything is created.
func openWrite(path string, flag int, perm fs.FileMode, follow bool) (*os.File, error) {
	flags := flag | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flags, uint32(perm.Perm()))
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ENXIO || (err == syscall.ELOOP && !follow) {
		// ENXIO: a FIFO with no reader (write-only non-blocking opens
		// fail so); ELOOP: a final symlink.
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
