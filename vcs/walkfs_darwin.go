package vcs

import (
	"os"

	"golang.org/x/sys/unix"
)

// withFile gives the directory the *os.File it is listed through, which
// close then closes.
func withFile(d openedDir) openedDir {
	d.f = os.NewFile(uintptr(d.fd), d.abs)
	return d
}

func (d openedDir) readDir() ([]dirent, error) { return readDirByFile(d.f) }

// pseudoFS names the pseudo file system the open directory fd is on, or
// "" for a real one: on macOS, devfs (/dev) is the only one.
func pseudoFS(fd int) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return ""
	}
	name := unix.ByteSliceToString(st.Fstypename[:])
	if name == "devfs" {
		return name
	}
	return ""
}
