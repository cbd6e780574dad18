package durable

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeOutOnly writes the file's pages out and waits for them, with no
// journal commit or disk-cache flush.
var writeOutOnly = func(f *os.File) error {
	return unix.SyncFileRange(int(f.Fd()), 0, 0,
		unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
}
