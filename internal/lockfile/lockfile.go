// Package lockfile takes an exclusive advisory lock on an open file, held
// until Unlock or until the file (or the process) closes: a crashed
// holder never leaves it locked.
package lockfile

import "os"

// Lock waits for the exclusive lock on f. Locks are per open file: two
// opens of the same file, even in one process, exclude each other.
func Lock(f *os.File) error { return lock(f) }

// Unlock releases the lock on f.
func Unlock(f *os.File) error { return unlock(f) }
