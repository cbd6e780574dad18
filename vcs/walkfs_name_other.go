//go:build (linux && !amd64 && !arm64) || darwin

package vcs

import "golang.org/x/sys/unix"

// fstatatName and openatName go through x/sys where the fast path's
// allocation-free calls are not written (walkfs_name_linux.go).

func fstatatName(fd int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

func openatName(fd int, name string, flags int) (int, error) {
	return unix.Openat(fd, name, flags, 0)
}
