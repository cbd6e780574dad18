//go:build linux || darwin

package regfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxgit/ctxgit/internal/wstest"
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

// A FIFO in place of a log is refused at once, with or without a reader.
func TestOpenAppendFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	wstest.Within(t, "OpenAppend on a FIFO", func() {
		f, err := OpenAppend(p, 0o644)
		if f != nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v, want ErrNotRegular", err)
		}
	})
}

// FromFD reads a regular file through a descriptor opened elsewhere, up
// to its size at fstat; a directory or a FIFO is refused, and closed.
func TestFromFD(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(name string) int {
		fd, err := unix.Open(filepath.Join(dir, name), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fd
	}
	f, err := FromFD(open("f"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != "hello" || f.Info().Size != 5 {
		t.Fatalf("read %q, %v; size %d", data, err, f.Info().Size)
	}
	for _, name := range []string{".", "fifo"} {
		fd := open(name)
		if _, err := FromFD(fd); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: err = %v, want ErrNotRegular", name, err)
		}
		if err := unix.Close(fd); err == nil {
			t.Errorf("%s: the refused descriptor was left open", name)
		}
	}
}
