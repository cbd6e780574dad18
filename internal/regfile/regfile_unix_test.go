//go:build linux || darwin

package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A FIFO where a file was expected is refused at once: opening it for
// reading with no writer must not block.
func TestFIFORefusedWithoutBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(p, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("err = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile on a FIFO blocked")
	}
}

// OpenAt reads a file of an open directory as Open reads one by path:
// a regular file only, bounded by its size at open; a symlink, a FIFO
// (without blocking) and a directory are refused.
func TestOpenAt(t *testing.T) {
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
	f, err := OpenAt(fd, "f")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != "hello" || f.Info().Size != 5 {
		t.Fatalf("read %q, %v; size %d", data, err, f.Info().Size)
	}
	for _, name := range []string{"link", "fifo", "sub"} {
		if f, err := OpenAt(fd, name); !errors.Is(err, ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: err = %v, want ErrNotRegular", name, err)
		}
	}
	if _, err := OpenAt(fd, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: err = %v", err)
	}
}
