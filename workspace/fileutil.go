package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
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

// readRegularLimited reads the file at path that an Lstat found regular
// (fi), refusing it when what was opened is another file: a symlink or a
// FIFO swapped in between the Lstat and the open is not followed or read.
func readRegularLimited(path string, fi fs.FileInfo, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !opened.Mode().IsRegular() || !os.SameFile(fi, opened) {
		return nil, fmt.Errorf("%s: changed while being read", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// WriteStateFile replaces a state file a person keeps (plan, logs, task
// state). When it is a symlink to a file inside the workspace — a plan
// kept in docs/ and linked from the root — the target is written and the
// link stays; a link leading outside the workspace is refused.
func (w *Workspace) WriteStateFile(rel string, data []byte) error {
	path := w.Path(rel)
	perm := filePerm(path)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return &spec.FileError{Path: rel, Err: unwrapPathError(err)}
		}
		if r, err := filepath.Rel(w.Root, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return spec.InvalidAt(rel, 0, "is a symlink to %s, outside the workspace: not written", target)
		}
		path = target
	}
	if err := w.Publish(path, data, perm); err != nil {
		if errors.Is(err, spec.ErrConflict) {
			return err
		}
		return &spec.FileError{Path: rel, Err: unwrapPathError(err)}
	}
	return nil
}

// filePerm keeps an edited file's permissions.
func filePerm(path string) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o644
}
