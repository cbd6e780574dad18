package atomicfile

import (
	"os"
	"time"
)

// renameDelays are git's waits between tries of a rename that failed
// because another process holds a file open (compat/mingw.c, delay[]):
// an editor, an indexer or a virus scanner reading the file we replace.
var renameDelays = []time.Duration{0, 1 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}

// Rename is os.Rename, retried as git retries on Windows while the old or
// new file is held open elsewhere. On Unix a rename never fails for that,
// so it is tried once.
func Rename(oldpath, newpath string) error {
	return renameRetry(os.Rename, heldOpen, oldpath, newpath)
}

func renameRetry(rename func(string, string) error, retry func(err error, newpath string) bool, oldpath, newpath string) error {
	return heldRetry(func() error { return rename(oldpath, newpath) }, func(err error) bool { return retry(err, newpath) })
}

// ReadFile is os.ReadFile, retried as Rename is while the file is being
// replaced: on Windows a rename over a file holds it with delete access
// for its duration, and an open that does not share deletion (every
// os.Open) fails meanwhile with a sharing violation. A reader of a file
// another process replaces atomically (a ref) gets the old content or
// the new, not that error. On Unix it is read once.
func ReadFile(path string) ([]byte, error) {
	var data []byte
	err := heldRetry(func() (err error) {
		data, err = os.ReadFile(path)
		return err
	}, beingReplaced)
	return data, err
}

// heldRetry runs op, and again after each of git's delays while it fails
// with an error retry accepts.
func heldRetry(op func() error, retry func(error) bool) error {
	err := op()
	for _, d := range renameDelays {
		if err == nil || !retry(err) {
			return err
		}
		time.Sleep(d)
		err = op()
	}
	return err
}
