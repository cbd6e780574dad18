package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

var errInUse = errors.New("in use")

// A rename refused while a file is held open is tried again, as git does
// on Windows, and succeeds once the file is let go; other errors, or a
// file held for good, fail after git's number of tries.
func TestRenameRetry(t *testing.T) {
	inUse := func(err error, _ string) bool { return errors.Is(err, errInUse) }
	flaky := func(failures int) (func(string, string) error, *int) {
		calls := 0
		return func(string, string) error {
			calls++
			if calls <= failures {
				return errInUse
			}
			return nil
		}, &calls
	}
	rename, calls := flaky(3)
	if err := renameRetry(rename, inUse, "a", "b"); err != nil || *calls != 4 {
		t.Fatalf("held three times: err %v after %d tries", err, *calls)
	}
	rename, calls = flaky(100)
	if err := renameRetry(rename, inUse, "a", "b"); !errors.Is(err, errInUse) || *calls != len(renameDelays)+1 {
		t.Fatalf("held for good: err %v after %d tries", err, *calls)
	}
	other := errors.New("no space")
	calls2 := 0
	err := renameRetry(func(string, string) error { calls2++; return other }, inUse, "a", "b")
	if err != other || calls2 != 1 {
		t.Fatalf("another error was retried: %v, %d tries", err, calls2)
	}
}

// Rename replaces the destination, on this platform's rename, even a
// read-only one (a loose object; Windows refuses that until the
// attribute is cleared).
func TestRename(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("new"), 0o644)
	os.WriteFile(b, []byte("old"), 0o444)
	if err := Rename(a, b); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(b); string(data) != "new" {
		t.Fatalf("b holds %q", data)
	}
}
