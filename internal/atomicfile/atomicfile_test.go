package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/wstest"
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
		if string(data) != "two" || fi.Mode().Perm() != wstest.Perm(0o640, false) {
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

// WriteNew never writes over a file: a second and third write of the same
// name get -2 and -3; an error other than "exists" stops at once instead
// of trying further names.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "f.bak")
	var got []string
	for i, data := range []string{"one", "two", "three"} {
		p, err := atomicfile.WriteNew(atomicfile.NumberedName(base), []byte(data), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(p))
		if b, err := os.ReadFile(p); err != nil || string(b) != data {
			t.Fatalf("write %d: %q, %v", i, b, err)
		}
	}
	if strings.Join(got, " ") != "f.bak f.bak-2 f.bak-3" {
		t.Fatalf("names %q", got)
	}
	if b, _ := os.ReadFile(base); string(b) != "one" {
		t.Fatalf("the first file was overwritten: %q", b)
	}
	tries := 0
	_, err := atomicfile.WriteNew(func(n int) string { tries++; return filepath.Join(dir, "missing", "x") }, nil, 0o644)
	if err == nil || tries != 1 {
		t.Fatalf("a missing directory: %v after %d names; want an error after 1", err, tries)
	}
}

// WriteNoSyncWith replaces the file with what fill wrote; a fill that
// fails leaves the old content and no temp file.
func TestWriteNoSyncWith(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	os.WriteFile(path, []byte("old"), 0o600)
	fill := func(w io.Writer) error {
		for _, part := range []string{"streamed ", "in ", "parts"} {
			if _, err := io.WriteString(w, part); err != nil {
				return err
			}
		}
		return nil
	}
	if err := atomicfile.WriteNoSyncWith(path, 0o640, fill); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(data) != "streamed in parts" || fi.Mode().Perm() != wstest.Perm(0o640, false) {
		t.Fatalf("content %q, mode %v", data, fi.Mode())
	}
	failed := errors.New("encoder failed")
	err := atomicfile.WriteNoSyncWith(path, 0o640, func(w io.Writer) error {
		io.WriteString(w, "half")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("error %v, want the fill's", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "streamed in parts" {
		t.Fatalf("a failed fill replaced the file: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}
