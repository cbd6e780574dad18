// Package atomicfile replaces files so that a reader, or a crash at any
// instant, sees the old content or the new, never a mix or a truncation.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data: a temp file in the same directory,
// written, given perm, fsynced, renamed over path; then the directory is
// fsynced so the rename itself survives a power loss.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

// WriteNoSync is Write without the fsyncs, for caches that can be rebuilt:
// a crash still leaves the old file or the new, and a torn one after a
// power loss must be detected by its reader (a checksum).
func WriteNoSync(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm fs.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := commit(f, path, data, sync); err != nil {
		return err
	}
	if sync {
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}

// Commit writes data into f (a new temp or lock file beside dest),
// fsyncs and closes it, and renames it over dest. On any failure f is
// removed and dest is untouched.
func Commit(f *os.File, dest string, data []byte) error {
	return commit(f, dest, data, true)
}

func commit(f *os.File, dest string, data []byte, sync bool) error {
	_, err := f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Rename(f.Name(), dest)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
