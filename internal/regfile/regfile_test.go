package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

func TestReadFileRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(p, 5)
	if err != nil || string(data) != "hello" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: err = %v, want ErrTooLarge", err)
	}
}

// A file that grows after it was opened is read only to the size fstat
// reported at open: a file that never ends cannot make a read endless.
func TestReadStopsAtOpenedSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	app, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	app.Write([]byte("defgh"))
	app.Close()
	buf := make([]byte, 100)
	total := 0
	for {
		n, err := f.Read(buf[total:])
		total += n
		if err != nil {
			break
		}
	}
	if string(buf[:total]) != "abc" {
		t.Fatalf("read %q, want the 3 bytes there at open", buf[:total])
	}
}

func TestSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "secret")
	if err := os.WriteFile(target, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	wstest.Symlink(t, target, link)
	if data, err := ReadFile(link, 100); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadFile(symlink) = %q, %v; want ErrNotRegular", data, err)
	}
}

func TestDirectoryRefused(t *testing.T) {
	if _, err := ReadFile(t.TempDir(), 100); err == nil {
		t.Fatal("ReadFile(directory) succeeded")
	}
}

// A 20 GB sparse file over the limit is refused from its size alone,
// without reading or allocating.
func TestHugeSparseFileRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sparse")
	wstest.SparseFile(t, p, 20<<30)
	if _, err := ReadFile(p, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}
