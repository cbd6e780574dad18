//go:build windows

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/windows"
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

// A reader of a file being replaced: a rename holds the file with delete
// access while it works (MoveFileEx shares reading, writing and
// deletion), and an open that shares no deletion, os.ReadFile's, fails
// meanwhile with a sharing violation (the Wine tier's ref races met it
// as "open …\refs\ctxgit\sessions\race: Sharing violation."). ReadFile
// waits for the rename as Rename waits for readers, and reads the file.
func TestReadFileWhileReplaced(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(name, windows.DELETE, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(p); !errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
		windows.CloseHandle(h)
		t.Fatalf("os.ReadFile while a handle holds delete access: %v, want a sharing violation", err)
	}
	time.AfterFunc(15*time.Millisecond, func() { windows.CloseHandle(h) })
	if data, err := ReadFile(p); err != nil || string(data) != "old" {
		t.Fatalf("ReadFile of a file held for 15 ms by a rename: %q, %v", data, err)
	}
}
