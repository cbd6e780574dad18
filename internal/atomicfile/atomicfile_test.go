package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.yaml")
	for _, write := range []func(string, []byte, os.FileMode) error{atomicfile.Write, atomicfile.WriteNoSync} {
		if err := write(path, []byte("one"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := write(path, []byte("two"), 0o640); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if string(data) != "two" || fi.Mode().Perm() != 0o640 {
			t.Fatalf("content %q, mode %v", data, fi.Mode())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

// A failed replacement leaves the old file whole and no temp file.
func TestWriteFailureLeavesOldContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o644)
	// Renaming a file over a non-empty directory fails.
	target := filepath.Join(dir, "d")
	os.MkdirAll(filepath.Join(target, "x"), 0o755)
	if err := atomicfile.Write(target, []byte("new"), 0o644); err == nil {
		t.Fatal("replacing a directory succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Fatalf("old file changed: %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}
