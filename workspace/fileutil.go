package workspace

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
)

// WriteFileAtomic replaces path with data atomically and durably (temp
// file, fsync, rename, directory fsync), creating its directory. A symlink
// at path is replaced, never followed: ctxgit's own outputs must not be
// redirected outside the workspace by a link someone committed.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, perm)
}

// maxStateFile bounds what ctxgit reads of one state file, so a runaway
// file cannot exhaust memory on the hook path.
const maxStateFile = 64 << 20
