//go:build unix

package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// An env file that is a FIFO or a device is refused at once, never read
// or written (issue 24 item 5).
func TestExportSessionEnvFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	t.Run("a FIFO is refused at once", func(t *testing.T) {
		path := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() { done <- exportTo(path, "A") }()
		select {
		case err := <-done:
			if !errors.Is(err, regfile.ErrNotRegular) {
				t.Fatalf("exportSession on a FIFO = %v, want not a regular file", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("exportSession hangs on a FIFO")
		}
	})

	t.Run("a device is refused", func(t *testing.T) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip(err)
		}
		if err := exportTo("/dev/zero", "A"); !errors.Is(err, regfile.ErrNotRegular) {
			t.Fatalf("exportSession on /dev/zero = %v, want not a regular file", err)
		}
	})
}
