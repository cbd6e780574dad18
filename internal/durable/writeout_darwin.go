package durable

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeOutOnly is fsync(2), which on macOS hands the data to the drive but
// does not flush its cache (F_FULLFSYNC does, and os.File.Sync uses it):
// git's FSYNC_WRITEOUT_ONLY on macOS is the same call.
var writeOutOnly = func(f *os.File) error {
	for {
		err := unix.Fsync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}
