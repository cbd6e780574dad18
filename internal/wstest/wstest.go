// Package wstest holds what the tests of the workspace and its feature
// packages (restore, retention) share, and the command's scripts: a
// workspace's files as a map, a listing of a tree that shows any change,
// the temporary and lock files an interrupted command must not leave,
// and a tree of small files to work on; and what any test may take for
// granted on the system it runs on (platform.go).
package wstest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
)

// TreeFiles maps every file below dir (store included) to its content.
func TreeFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Listing is every entry below root, one a line, in path order: its
// path relative to root, its type and permissions, and a link's target
// or a regular file's content, quoted. Nothing is followed: a FIFO or a
// device is only its type. Two listings of a root compare equal when
// nothing there changed, byte for byte.
func Listing(root string) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %v", filepath.ToSlash(rel), fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " -> %s", target)
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String(), err
}

// Leftovers are the temporary and lock files among files: an interrupted
// command removes its own.
func Leftovers(files map[string]string) []string {
	var out []string
	for p := range files {
		base := p[strings.LastIndex(p, "/")+1:]
		if atomicfile.IsTemp(base) || strings.HasPrefix(base, "tmp_") || strings.HasSuffix(base, ".lock") || p == spec.LocalDir+"/lock" {
			out = append(out, p)
		}
	}
	return out
}

// WriteTree writes dirs directories of files small files each below root,
// their content tagged with tag.
func WriteTree(t testing.TB, root, tag string, dirs, files int) {
	t.Helper()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", f)), fmt.Appendf(nil, "%s: dir %d file %d\n", tag, d, f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Within runs f and fails the test if it has not returned in 10 s: a read
// that blocks on a FIFO or never ends fails there rather than hanging the
// test run (f keeps running; the test binary ends soon after).
func Within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}

// SparseFile creates path with the given size and no data blocks, to test
// that a size limit refuses a file before reading it. A file system
// without sparse files skips the test: writing the bytes would only fill
// the disk.
func SparseFile(t testing.TB, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skip("no sparse files here:", err)
	}
}
