//go:build linux && (amd64 || arm64)

package vcs

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatatName and openatName are unix.Fstatat and unix.Openat for a
// name in a directory, without the heap copy x/sys makes of every path
// to end it with a NUL: a name fits in a buffer on the stack (NAME_MAX is
// 255). At 184,880 files those copies were 4-7 MB of a no-change
// checkpoint's garbage. A longer name goes through x/sys.

func fstatatName(fd int, name string, st *unix.Stat_t) error {
	var buf [256]byte
	if len(name) >= len(buf) {
		return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	copy(buf[:], name)
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	return errnoErr(e)
}

func openatName(fd int, name string, flags int) (int, error) {
	var buf [256]byte
	if len(name) >= len(buf) {
		return unix.Openat(fd, name, flags, 0)
	}
	copy(buf[:], name)
	r, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(flags), 0, 0, 0)
	return int(r), errnoErr(e)
}

func errnoErr(e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}
