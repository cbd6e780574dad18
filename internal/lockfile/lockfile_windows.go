//go:build windows

package lockfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// The first byte is the lock: LockFileEx locks ranges, and one byte is
// enough (the range may lie past the end of the file).
func lock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
