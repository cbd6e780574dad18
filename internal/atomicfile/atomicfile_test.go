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

// Temporary files carry ctxgit's prefix and the writer's pid, so a
// cleanup knows them and can ask whether their writer runs (issue 13).
func TestTempName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.md")
	var seen string
	if err := atomicfile.WriteChecked(path, []byte("x"), 0o644, func() error {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			seen = e.Name()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !atomicfile.IsTemp(seen) {
		t.Fatalf("temp file %q lacks %q", seen, atomicfile.TempPrefix)
	}
	if pid, ok := atomicfile.TempPID(seen); !ok || pid != os.Getpid() {
		t.Fatalf("TempPID(%q) = %d, %v", seen, pid, ok)
	}
	for _, name := range []string{"plan.md", ".ctxgit-tmp-", ".ctxgit-tmp-x-plan.md", ".ctxgit-tmp--1-plan.md"} {
		if _, ok := atomicfile.TempPID(name); ok {
			t.Errorf("TempPID(%q) found a pid", name)
		}
	}
}
