//go:build !linux && !darwin

package vcs

import (
	"io/fs"
	"os"
)

// openDir opens a directory by path. Its listing is never cached here:
// without the fast path's descriptor there is no stat data taken before
// the listing, and these systems' directory times are not relied on.
func openDir(abs string, follow bool, _ *fsTypes) (openedDir, error) {
	return openDirByPath(abs, follow)
}

func lstatAt(d openedDir, name string) (fileStat, error) { return lstatByPath(d, name) }

func (d openedDir) readDir() ([]dirent, error) { return readDirByFile(d.f) }

func (d openedDir) close() error { return d.f.Close() }

func readWhole(path string) ([]byte, error) { return os.ReadFile(path) }

// allocated is a file's length: this system's stat has no block count.
func allocated(fi fs.FileInfo) int64 { return fi.Size() }
