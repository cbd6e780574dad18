package vcs

import "golang.org/x/sys/unix"

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
