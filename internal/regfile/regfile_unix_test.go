//go:build linux || darwin

package regfile

import (
	"errors"
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
