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
	err := rename(oldpath, newpath)
	for _, d := range renameDelays {
		if err == nil || !retry(err, newpath) {
			return err
		}
		time.Sleep(d)
		err = rename(oldpath, newpath)
	}
	return err
}
