package durable

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// WriteOut succeeds on a regular file with this platform's call, and the
// data reads back.
func TestWriteOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "obj")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("data")
	if writeOutOnly != nil {
		if err := writeOutOnly(f); err != nil {
			t.Fatalf("the platform's write-out failed: %v", err)
		}
	}
	if err := WriteOut(f); err != nil {
		t.Fatal(err)
	}
	if err := Marker(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "data" {
		t.Fatalf("read back %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("the marker was left behind: %v", entries)
	}
}

// Where the write-out call fails or is missing, WriteOut falls back to a
// full Sync, and reports Sync's error: a closed file fails both.
func TestWriteOutFallback(t *testing.T) {
	saved := writeOutOnly
	defer func() { writeOutOnly = saved }()
	var called bool
	for _, fake := range []func(*os.File) error{
		nil,
		func(*os.File) error { called = true; return errors.New("not supported") },
	} {
		writeOutOnly = fake
		f, err := os.Create(filepath.Join(t.TempDir(), "obj"))
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteOut(f); err != nil {
			t.Fatalf("fallback Sync failed: %v", err)
		}
		f.Close()
		if err := WriteOut(f); err == nil {
			t.Fatal("WriteOut on a closed file reported success")
		}
	}
	if !called {
		t.Fatal("the platform call was not tried first")
	}
}
