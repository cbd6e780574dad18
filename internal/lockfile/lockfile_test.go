package lockfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A second open of the file waits for the lock until the first unlocks,
// and gets it then; closing a file releases its lock.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "guard")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- Lock(b) }()
	select {
	case err := <-got:
		t.Fatalf("second lock taken while the first is held (err %v)", err)
	case <-time.After(150 * time.Millisecond):
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second lock not taken after unlock")
	}
	// b holds it; closing b releases it for a third open.
	b.Close()
	c := open()
	done := make(chan error, 1)
	go func() { done <- Lock(c) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("lock not released by close")
	}
	Unlock(c)
}
