//go:build unix

package lockfile

import (
	"os"

	"golang.org/x/sys/unix"
)

func lock(f *os.File) error { return flock(f, unix.LOCK_EX) }

func unlock(f *os.File) error { return flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}
