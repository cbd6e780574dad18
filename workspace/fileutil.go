package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data so a reader or a crash sees the
// old content or the new, never a mix: temp file in the same directory,
// fsync, rename, then fsync the directory so the rename itself survives a
// power loss.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// maxStateFile bounds what ctxgit reads of one state file, so a runaway
// file cannot exhaust memory on the hook path.
const maxStateFile = 64 << 20

// readLimited reads a file of at most limit bytes; a larger one is an
// error rather than a silent truncation.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

var errTooLarge = errors.New("file too large")
