package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
)

// WriteFileAtomic replaces path with data atomically and durably (temp
// file, fsync, rename, directory fsync), creating its directory.
//
// A symlinked file is written through the link (a plan kept in docs/ and
// linked from the root stays where it is), never replaced by a file.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return err
		}
		path = target
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, perm)
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
