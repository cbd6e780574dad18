package vcs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Issue 13 item 1: /proc's files report size 0 and some never end; the
// walk refuses a directory on a pseudo file system rather than read it.
func TestOpenDirRefusesPseudoFileSystems(t *testing.T) {
	for _, dir := range []string{"/proc/self", "/sys/kernel"} {
		if _, err := os.Stat(dir); err != nil {
			continue // not mounted here
		}
		d, err := openDir(-1, "", func() string { return dir }, true, &fsTypes{})
		if err == nil {
			d.close()
			t.Fatalf("%s: opened; want refused as a pseudo file system", dir)
		}
		var pe *pseudoFSError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v; want a pseudo file system error", dir, err)
		}
	}
}

// A snapshot rooted in /proc fails with the reason, rather than reading
// its endless files.
func TestSnapshotOfProcFails(t *testing.T) {
	_, err := Snapshot(NewMemStore(), SnapshotOptions{Root: "/proc/self"})
	if err == nil || !strings.Contains(err.Error(), "proc pseudo file system") {
		t.Fatalf("err = %v; want the proc file system refused", err)
	}
}

// The getdents listing gives the names and types os.ReadDir gives, for
// every kind of entry and for more entries than one buffer holds.
func TestReadDirMatchesOSReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 1200 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-with-a-longish-name-%04d.go", i)), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("sub", filepath.Join(dir, "link"))
	unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	d, err := openDir(-1, "", func() string { return dir }, true, &fsTypes{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	got, err := d.readDir()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]fs.FileMode{}
	for _, e := range got {
		seen[e.Name()] = e.Type()
	}
	if len(got) != len(want) || len(seen) != len(want) {
		t.Fatalf("listed %d entries (%d distinct), os.ReadDir %d", len(got), len(seen), len(want))
	}
	for _, e := range want {
		if typ, ok := seen[e.Name()]; !ok || typ != e.Type() {
			t.Fatalf("%s: listed %v (%v), os.ReadDir %v", e.Name(), typ, ok, e.Type())
		}
	}
}
