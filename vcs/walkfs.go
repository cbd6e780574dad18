package vcs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The snapshot walker's view of the file system: open a directory without
// following a symlink, lstat a name in it, read a whole file. Linux and
// macOS have a fast path (walkfs_unix.go: fstatat relative to the open
// directory, no path walk per file); elsewhere the portable functions
// below do the same by path.

// fileStat is what a snapshot needs of an lstat.
type fileStat struct {
	size  int64
	mtime int64  // ns
	ctime int64  // ns; 0 where the system has no change time
	ino   uint64 // 0 where the system has no inode number
	exec  bool   // owner-executable; always false where files have no such bit
}

// openedDir is a directory being listed: its path, and where the fast path
// has one, its descriptor (f is nil where the descriptor is listed
// directly: Linux). st is its stat data, taken before it is listed;
// cacheable says a listing may be kept against st (dirStat).
type openedDir struct {
	f         *os.File
	abs       string
	fd        int
	st        dirStat
	cacheable bool
}

// dirStat is what a directory's cached listing is trusted by: creating,
// removing or renaming an entry sets the directory's mtime and ctime, and
// a directory put in its place has another inode (or device).
type dirStat struct {
	mtime, ctime int64 // ns
	size         int64
	ino, dev     uint64
}

// fsTypes remembers, per device, what the file system's type says: a
// pseudo file system to leave out, or one whose directory times may be
// trusted. One snapshot asks the kernel once per device, not once per
// directory.
type fsTypes struct {
	mu sync.Mutex
	m  map[uint64]fsKind
}

// fsKind is what a file system's type says to the walk.
type fsKind struct {
	pseudo  string // the pseudo file system's name, "" for a real one
	trusted bool   // directory times mark every change of entries
}

// kind looks dev up, asking probe the first time.
func (t *fsTypes) kind(dev uint64, probe func() fsKind) fsKind {
	t.mu.Lock()
	k, ok := t.m[dev]
	t.mu.Unlock()
	if ok {
		return k
	}
	k = probe()
	t.mu.Lock()
	if t.m == nil {
		t.m = map[uint64]fsKind{}
	}
	t.m[dev] = k
	t.mu.Unlock()
	return k
}

// dirent is one directory entry: its name and type bits; left, for an
// entry of a listing kept in the stat cache, says the snapshot left it
// out by a rule that asks nothing of git's index (ctxgit's own outputs,
// snapshot.excludes).
type dirent struct {
	name string
	typ  fs.FileMode
	left bool
}

func (e dirent) Name() string      { return e.name }
func (e dirent) Type() fs.FileMode { return e.typ }

var errDirIsSymlink = errors.New("is a symlink now, not a directory")

// openDirByPath opens a directory; one that is a symlink is refused
// unless follow is set (the workspace root may be reached through one).
// The check and the open are two steps, so a directory swapped for a
// symlink in between is followed; the fast path has no such window.
func openDirByPath(abs string, follow bool) (openedDir, error) {
	if !follow {
		fi, err := os.Lstat(abs)
		if err != nil {
			return openedDir{}, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return openedDir{}, &fs.PathError{Op: "open", Path: abs, Err: errDirIsSymlink}
		}
	}
	f, err := os.Open(abs)
	return openedDir{f: f, abs: abs, fd: -1}, err
}

// lstatByPath lstats name in d by its path.
func lstatByPath(d openedDir, name string) (fileStat, error) {
	fi, err := os.Lstat(filepath.Join(d.abs, name))
	if err != nil {
		return fileStat{}, err
	}
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), exec: fi.Mode()&0o100 != 0}, nil
}
