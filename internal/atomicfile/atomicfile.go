// Package atomicfile replaces files so that a reader, or a crash at any
// instant, sees the old content or the new, never a mix or a truncation.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TempPrefix starts the name of every temporary file ctxgit makes beside
// a file it replaces. A process killed between creating one and renaming
// it leaves it behind: the name lets snapshots leave it out and cleanups
// (restore, doctor --fix) recognise it as ctxgit's (SPEC §9.3, docs/cli.md#doctor).
const TempPrefix = ".ctxgit-tmp-"

// IsTemp reports whether a file name is one of ctxgit's temporary files.
func IsTemp(name string) bool { return strings.HasPrefix(name, TempPrefix) }

// TempName is the name of a temporary file for replacing a file named
// base: .ctxgit-tmp-<pid>-<base>. The pid lets a cleanup tell a killed
// writer's leftover from a running writer's file (TempPID).
func TempName(base string) string {
	return TempPrefix + strconv.Itoa(os.Getpid()) + "-" + base
}

// TempPID is the pid of the process that made the temporary file name,
// when the name carries one.
func TempPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

// Write replaces path with data: a temp file in the same directory,
// written, given perm, fsynced, renamed over path; then the directory is
// fsynced so the rename itself survives a power loss.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true, nil)
}

// WriteChecked is Write that calls check after the temp file is durable
// and just before the rename that makes it visible; an error from check
// removes the temp file and leaves path untouched. A lock holder uses it
// to publish nothing once it has lost its lock.
func WriteChecked(path string, data []byte, perm fs.FileMode, check func() error) error {
	return write(path, data, perm, true, check)
}

// WriteFrom is WriteChecked for content read from r, copied in bounded
// memory: a restored file of any size takes a buffer, not its size.
func WriteFrom(path string, r io.Reader, perm fs.FileMode, check func() error) error {
	return writeWith(path, perm, true, check, func(f *os.File) error {
		_, err := io.Copy(f, r)
		return err
	})
}

// WriteNoSync is Write without the fsyncs, for caches that can be rebuilt:
// a crash still leaves the old file or the new, and a torn one after a
// power loss must be detected by its reader (a checksum).
func WriteNoSync(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false, nil)
}

// WriteNoSyncWith is WriteNoSync for content fill writes as it makes it:
// a large cache is encoded straight to the temp file, never whole in
// memory.
func WriteNoSyncWith(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	return writeWith(path, perm, false, nil, func(f *os.File) error { return fill(f) })
}

func write(path string, data []byte, perm fs.FileMode, sync bool, check func() error) error {
	return writeWith(path, perm, sync, check, writeData(data))
}

// writeWith is every Write: a temp file beside path, given perm, filled by
// fill, then committed over path; with sync, the directory is fsynced too.
func writeWith(path string, perm fs.FileMode, sync bool, check func() error, fill func(*os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, TempName(filepath.Base(path))+".*")
	if err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := commit(f, path, fill, sync, check); err != nil {
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

func writeData(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}
}

// Commit writes data into f (a new temp or lock file beside dest),
// fsyncs and closes it, and renames it over dest. On any failure f is
// removed and dest is untouched.
func Commit(f *os.File, dest string, data []byte) error {
	return commit(f, dest, writeData(data), true, nil)
}

// commit fills f, fsyncs (with sync) and closes it, runs check, and
// renames it over dest; on any failure f is removed and dest untouched.
func commit(f *os.File, dest string, fill func(*os.File) error, sync bool, check func() error) error {
	err := fill(f)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && check != nil {
		err = check()
	}
	if err == nil {
		err = Rename(f.Name(), dest)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// maxNewNames bounds the names WriteNew tries.
const maxNewNames = 1000

// WriteNew writes data to a file that did not exist: the first of
// name(1), name(2), … that can be created exclusively, never over an
// earlier one (a backup taken twice in one second gets the next name). The
// file is fsynced before WriteNew returns its path. An error other than
// "exists" stops the search, and so do maxNewNames names all taken; a file
// that could not be written whole is removed.
func WriteNew(name func(n int) string, data []byte, perm fs.FileMode) (string, error) {
	for n := 1; n <= maxNewNames; n++ {
		path := name(n)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("%s: %d files of that name already", name(1), maxNewNames)
}

// NumberedName is WriteNew's usual naming: base, then base-2, base-3, ….
func NumberedName(base string) func(int) string {
	return func(n int) string {
		if n == 1 {
			return base
		}
		return fmt.Sprintf("%s-%d", base, n)
	}
}
