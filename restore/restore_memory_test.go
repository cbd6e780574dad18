package restore

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// Issue 13 item 15: with snapshot.max_file_size 0 any file is
// checkpointed, and restoring it must not take its size in memory: the
// blob is streamed from the store to the file, from a loose object and
// from a pack. A 64 MiB file is restored allocating less than a quarter
// of it (slurping allocated at least the file's size).
func TestRestoreLargeFileBoundedMemory(t *testing.T) {
	const size = 64 << 20
	w := restoreWS(t, map[string]string{"a.txt": "a"})
	w.Config.Snapshot.MaxFileSize = 0
	big := w.Path("big.bin")
	want := writeGenerated(t, big, size)
	mustCheckpoint(t, w)

	for _, stage := range []string{"loose object", "pack"} {
		if stage == "pack" {
			store, err := w.DiskStore()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Repack(context.Background(), vcs.RepackAll, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(big); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := w.Restore(Options{Name: "cp_001", Paths: []string{"big.bin"}})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		if got := actions(res.Changes); len(got) != 1 || got[0] != "create big.bin" {
			t.Fatalf("%s: restore did %q", stage, got)
		}
		if got := fileSHA256(t, big); got != want {
			t.Fatalf("%s: the restored file differs from the one checkpointed", stage)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
			t.Errorf("%s: restoring a %d MiB file allocated %d MiB", stage, size>>20, alloc>>20)
		} else {
			t.Logf("%s: restoring a %d MiB file allocated %.1f MiB", stage, size>>20, float64(alloc)/(1<<20))
		}
	}
}

// writeGenerated writes size bytes of numbered lines (compressible, not
// uniform) and returns their SHA-256.
func writeGenerated(t *testing.T, path string, size int) [32]byte {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	bw := bufio.NewWriter(io.MultiWriter(f, h))
	for n, i := 0, 0; n < size; i++ {
		line := fmt.Sprintf("line %09d of a large generated file\n", i)
		if n+len(line) > size {
			line = line[:size-n]
		}
		bw.WriteString(line)
		n += len(line)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func fileSHA256(t *testing.T, path string) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}
