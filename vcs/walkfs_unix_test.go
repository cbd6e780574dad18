//go:build linux || darwin

package vcs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"golang.org/x/sys/unix"
)

// A file the snapshot reads relative to its directory is read as
// regfile.Open reads one by path: a regular file only, up to its size
// at open; a symlink, a FIFO (without blocking) and a directory are
// refused, a missing file is not found.
func TestOpenFileAt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("f", filepath.Join(dir, "link"))
	unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	f, err := openFileAt(fd, "f")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != "hello" || f.Info().Size != 5 {
		t.Fatalf("read %q, %v; size %d", data, err, f.Info().Size)
	}
	for _, name := range []string{"link", "fifo", "sub"} {
		if f, err := openFileAt(fd, name); !errors.Is(err, regfile.ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: err = %v, want ErrNotRegular", name, err)
		}
	}
	if _, err := openFileAt(fd, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: err = %v", err)
	}
}
