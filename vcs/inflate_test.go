package vcs

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func deflated(t testing.TB, raw string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write([]byte(raw))
	zw.Close()
	return b.Bytes()
}

func TestReadLoose(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB, several inflate windows
	badSum := deflated(t, "blob 5\x00hello")
	badSum[len(badSum)-1] ^= 0xff
	cut := deflated(t, "blob 5\x00hello")
	cut = cut[:len(cut)-6]
	for _, c := range []struct {
		name     string
		file     []byte
		wantType ObjectType
		want     string
		wantErr  string
	}{
		{name: "blob", file: deflated(t, "blob 5\x00hello"), wantType: BlobObject, want: "hello"},
		{name: "empty blob", file: deflated(t, "blob 0\x00"), wantType: BlobObject, want: ""},
		{name: "commit", file: deflated(t, "commit 3\x00abc"), wantType: CommitObject, want: "abc"},
		{name: "tree", file: deflated(t, "tree 0\x00"), wantType: TreeObject, want: ""},
		{name: "big", file: deflated(t, "blob 1048576\x00"+big), wantType: BlobObject, want: big},
		{name: "size too large", file: deflated(t, "blob 6\x00hello"), wantErr: "corrupt object"},
		{name: "size too small", file: deflated(t, "blob 4\x00hello"), wantErr: "corrupt object"},
		{name: "leading zero", file: deflated(t, "blob 05\x00hello"), wantErr: "corrupt object"},
		{name: "signed size", file: deflated(t, "blob +5\x00hello"), wantErr: "corrupt object"},
		{name: "no size", file: deflated(t, "blob\x00hello"), wantErr: "corrupt object"},
		{name: "no NUL", file: deflated(t, "blob 5 hello"), wantErr: "corrupt object"},
		{name: "header past 32 bytes", file: deflated(t, "blob "+strings.Repeat("1", 40)+"\x00"), wantErr: "corrupt object"},
		{name: "unknown type", file: deflated(t, "frob 5\x00hello"), wantErr: `corrupt object: type "frob"`},
		{name: "bad checksum", file: badSum, wantErr: "corrupt object"},
		{name: "truncated", file: cut, wantErr: "corrupt object"},
		{name: "not zlib", file: []byte("blob 5\x00hello"), wantErr: "corrupt object"},
		{name: "empty file", file: nil, wantErr: "corrupt object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "obj")
			if err := os.WriteFile(path, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			// Twice: the second read runs on a pooled inflater.
			for range 2 {
				typ, data, err := readLoose(path)
				if c.wantErr != "" {
					if err == nil || err.Error() != c.wantErr {
						t.Fatalf("readLoose = %v, %q, %v; want error %q", typ, data, err, c.wantErr)
					}
					continue
				}
				if err != nil || typ != c.wantType || string(data) != c.want {
					t.Fatalf("readLoose = %v, %d bytes, %v; want %v, %d bytes", typ, len(data), err, c.wantType, len(c.want))
				}
			}
		})
	}
}

func TestReadLooseMissing(t *testing.T) {
	_, _, err := readLoose(filepath.Join(t.TempDir(), "absent"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("readLoose of a missing file = %v, want not-exist", err)
	}
}

// A header claiming far more than the file could inflate to is refused
// before anything is allocated for it.
func TestReadLooseHugeClaim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "obj")
	if err := os.WriteFile(path, deflated(t, "blob 17179869184\x00x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := readLoose(path)
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != "corrupt object" {
		t.Fatalf("readLoose = %v, want corrupt object", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("refusing a 16 GiB claim allocated %d bytes", grew)
	}
}

// readWhole reads files of every size around a page and a read's edges,
// and names the path in its errors.
func TestReadWhole(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 4095, 4096, 1 << 20} {
		path := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte{'x'}, n)
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readWhole(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("readWhole of %d bytes = %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := readWhole(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("readWhole of a directory = %v, want an error naming it", err)
	}
}

// BenchmarkReadLoose reads one loose commit of typical size: the unit of
// `ctxgit log` over a history of loose checkpoints (scripts/bench-history.sh
// compares the whole command with git log).
func BenchmarkReadLoose(b *testing.B) {
	body := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"author ctxgit <ctxgit@localhost> 1763800000 +0000\ncommitter ctxgit <ctxgit@localhost> 1763800000 +0000\n\n" +
		"checkpoint cp_042 (manual): step 3 of 7\n\nCtxgit-Session: default\nCtxgit-Checkpoint: cp_042\nCtxgit-Trigger: manual\n"
	path := filepath.Join(b.TempDir(), "obj")
	if err := os.WriteFile(path, deflated(b, fmt.Sprintf("commit %d\x00%s", len(body), body)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, data, err := readLoose(path); err != nil || len(data) != len(body) {
			b.Fatalf("readLoose = %d bytes, %v", len(data), err)
		}
	}
}
