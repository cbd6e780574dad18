// Package durable writes file data out to the disk in batches: many files
// are written out (no disk-cache flush each), then one fsync of a marker
// file flushes the disk cache once for all of them. This is git's
// core.fsyncMethod=batch.
package durable

import "os"

// WriteOut starts and waits for the write-out of f's data, without the
// disk-cache flush of a full fsync where the system can: Linux's
// sync_file_range, macOS's plain fsync(2) (os.File.Sync there is
// F_FULLFSYNC). Elsewhere, or if that call fails (a file system that does
// not support it), it falls back to f.Sync. A batch is durable only after
// Marker.
func WriteOut(f *os.File) error {
	if writeOutOnly != nil && writeOutOnly(f) == nil {
		return nil
	}
	return f.Sync()
}

// Marker fsyncs a throwaway file in dir: the journal commit and disk-cache
// flush it causes make the data written out before it durable.
func Marker(dir string) error {
	f, err := os.CreateTemp(dir, "tmp_sync_")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
