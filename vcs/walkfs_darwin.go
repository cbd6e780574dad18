package vcs

import (
	"os"

	"golang.org/x/sys/unix"
)

// withFile gives the directory the *os.File it is listed through, which
// close then closes.
func withFile(d openedDir) openedDir {
	d.f = os.NewFile(uintptr(d.fd), "")
	return d
}

func (d openedDir) readDir() ([]dirent, error) { return readDirByFile(d.f) }

// fsKindOf says what the file system of the open directory fd is to the
// walk: on macOS, devfs (/dev) is the only pseudo file system, and APFS
// and HFS+ (1 s times, inside the racy margin) set a directory's times on
// every change of its entries. Others (SMB, NFS, FAT, FUSE) are listed
// every time.
func fsKindOf(fd int) fsKind {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return fsKind{}
	}
	switch name := unix.ByteSliceToString(st.Fstypename[:]); name {
	case "devfs":
		return fsKind{pseudo: name}
	case "apfs", "hfs":
		return fsKind{trusted: true}
	}
	return fsKind{}
}
