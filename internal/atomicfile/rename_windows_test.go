//go:build windows

package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Windows refuses to rename over a file another handle holds open
// without FILE_SHARE_DELETE (os.Open shares only reading and writing);
// Rename waits for it, as git does, and replaces it once it is closed.
func TestRenameOverAFileHeldOpen(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("new"), 0o644)
	os.WriteFile(b, []byte("old"), 0o644)
	h, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(15*time.Millisecond, func() { h.Close() })
	if err := Rename(a, b); err != nil {
		t.Fatalf("rename over a file held for 15 ms: %v", err)
	}
	if data, _ := os.ReadFile(b); string(data) != "new" {
		t.Fatalf("b holds %q", data)
	}
}
