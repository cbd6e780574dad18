//go:build linux || darwin

package vcs

import (
	"io/fs"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"golang.org/x/sys/unix"
)

// pseudoFSError says a directory is on a pseudo file system and was left
// out.
type pseudoFSError struct{ fs string }

func (e *pseudoFSError) Error() string {
	return "on the " + e.fs + " pseudo file system: left out"
}

// openDir opens a directory: the root by its path (abs(), following a
// symlink to it), any other by name relative to its parent's open
// descriptor at, with O_NOFOLLOW: a directory replaced by a symlink since
// it was listed is refused, never followed, and the kernel resolves one
// name, not the whole path (an open by path was as dear as every lstat of
// a no-change checkpoint of 184,880 files together). A directory on a
// pseudo file system (/proc, /sys) is refused too: its files' sizes say
// nothing of what reading them yields. The directory's stat data is taken
// before anything lists it; its file system's type is asked once per
// device (types).
func openDir(at int, name string, abs func() string, root bool, types *fsTypes) (openedDir, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !root {
		flags |= unix.O_NOFOLLOW
	}
	for {
		var fd int
		var err error
		if root || at < 0 {
			fd, err = unix.Open(abs(), flags, 0)
		} else {
			fd, err = openatName(at, name, flags)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return openedDir{}, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return openedDir{}, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
		k := types.kind(uint64(st.Dev), func() fsKind { return fsKindOf(fd) })
		if k.pseudo != "" {
			unix.Close(fd)
			return openedDir{}, &fs.PathError{Op: "open", Path: name, Err: &pseudoFSError{k.pseudo}}
		}
		d := openedDir{fd: fd, cacheable: k.trusted, st: dirStat{
			mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), size: st.Size, ino: uint64(st.Ino), dev: uint64(st.Dev)}}
		return withFile(d), nil
	}
}

// opensAt says subdirectories are opened relative to their parent's
// descriptor, which stays open until they are, and files read relative
// to their directory's.
const opensAt = true

// openFileAt opens a file of the open directory dirfd as regfile.Open
// does by path: never following a symlink, never blocking on a FIFO, a
// regular file only.
func openFileAt(dirfd int, name string) (*regfile.File, error) {
	for {
		fd, err := openatName(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		switch err {
		case nil:
			return regfile.FromFD(fd)
		case unix.EINTR:
			continue
		case unix.ELOOP:
			return nil, &fs.PathError{Op: "open", Path: name, Err: regfile.ErrNotRegular}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
}

func (d openedDir) close() error {
	if d.f != nil {
		return d.f.Close()
	}
	return unix.Close(d.fd)
}

// lstatAt lstats name relative to its directory's descriptor.
func lstatAt(d openedDir, name string) (fileStat, error) {
	var st unix.Stat_t
	if err := fstatatName(d.fd, name, &st); err != nil {
		return fileStat{}, err
	}
	return fileStat{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, exec: st.Mode&0o100 != 0}, nil
}

// readWhole reads a file with open, fstat, read and close. os.ReadFile
// also tries to register the file with the runtime's poller (five more
// system calls that fail for a regular file), which on a log of 1,000
// loose commits was a tenth of the time.
func readWhole(path string) ([]byte, error) {
	fd, err := openRetry(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	// One byte more than the size, so a file that grew is read to its
	// end rather than cut at the size fstat saw.
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

func openRetry(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// allocated is the disk space a file takes: its allocated blocks, or its
// length where the file system reports none.
func allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*unix.Stat_t); ok && st.Blocks > 0 {
		return st.Blocks * 512
	}
	return fi.Size()
}
