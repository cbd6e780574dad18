package sibling

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

func TestFindPrefersBeside(t *testing.T) {
	dir := t.TempDir()
	beside := filepath.Join(dir, exeName("companion"))
	if err := os.WriteFile(beside, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	self := func() (string, error) { return filepath.Join(dir, exeName("ctxgit")), nil }
	onPath := func(string) (string, error) { return "/elsewhere/companion", nil }
	got, err := find("companion", self, onPath)
	if err != nil || got != beside {
		t.Fatalf("find = %q, %v; want %q", got, err, beside)
	}
}

func TestFindFallsBackToPath(t *testing.T) {
	dir := t.TempDir()
	// A directory of the name beside is not a program.
	if err := os.Mkdir(filepath.Join(dir, exeName("companion")), 0o755); err != nil {
		t.Fatal(err)
	}
	self := func() (string, error) { return filepath.Join(dir, exeName("ctxgit")), nil }
	onPath := func(name string) (string, error) { return "/on/path/" + name, nil }
	got, err := find("companion", self, onPath)
	if err != nil || got != "/on/path/companion" {
		t.Fatalf("find = %q, %v", got, err)
	}
	noSelf := func() (string, error) { return "", errors.New("no executable") }
	if got, err := find("companion", noSelf, onPath); err != nil || got != "/on/path/companion" {
		t.Fatalf("without os.Executable: find = %q, %v", got, err)
	}
}

func TestFindNotFound(t *testing.T) {
	self := func() (string, error) { return filepath.Join(t.TempDir(), exeName("ctxgit")), nil }
	missing := func(name string) (string, error) { return "", &exec.Error{Name: name, Err: exec.ErrNotFound} }
	if _, err := find("companion", self, missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	broken := errors.New("permission denied")
	if _, err := find("companion", self, func(string) (string, error) { return "", broken }); !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the lookup's own error", err)
	}
}
