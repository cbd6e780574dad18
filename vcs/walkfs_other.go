//go:build !linux && !darwin

package vcs

import (
	"errors"
	"io/fs"
	"os"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// openDir opens a directory by path (abs()), the root following a
// symlink to it. Its listing is never cached here: without the fast
// path's descriptor there is no stat data taken before the listing, and
// these systems' directory times are not relied on.
func openDir(_ int, _ string, abs func() string, root bool, _ *fsTypes) (openedDir, error) {
	return openDirByPath(abs(), root)
}

// opensAt is false: every directory and file is opened by its path.
const opensAt = false

// openFileAt is not called where opensAt is false.
func openFileAt(int, string) (*regfile.File, error) { return nil, errors.ErrUnsupported }

func lstatAt(d openedDir, name string) (fileStat, error) { return lstatByPath(d, name) }

func (d openedDir) readDir() ([]dirent, error) { return readDirByFile(d.f) }

func (d openedDir) close() error { return d.f.Close() }

func readWhole(path string) ([]byte, error) { return os.ReadFile(path) }

// allocated is a file's length: this system's stat has no block count.
func allocated(fi fs.FileInfo) int64 { return fi.Size() }
