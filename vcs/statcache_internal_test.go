package vcs

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cacheOfTree snapshots a small tree into a MemStore and returns the stat
// cache file the snapshot saved.
func cacheOfTree(t testing.TB, files map[string]string, links map[string]string) []byte {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	s := NewMemStore()
	cache := filepath.Join(t.TempDir(), "statcache")
	opts := SnapshotOptions{Root: root, StatCache: cache, StoreKey: "key", Fixed: []string{"*.tmp"}, Start: time.Now().Add(time.Hour)}
	res, err := Snapshot(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.SaveCache(s, res.Tree); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// listingOf is every directory of a cache, breadth first, with its tree,
// listing and files, as text.
func listingOf(c *statCache) string {
	var b strings.Builder
	for d := range uint32(c.nDirs) {
		tree, hasTree := c.dirTree(d)
		seen, listed := c.dirSeen(d)
		b.WriteString("dir " + tree.id.String())
		if hasTree {
			b.WriteString(" tree")
		}
		if listed {
			b.WriteString(" listed")
		}
		b.WriteString(" " + strings.Repeat("+", int(tree.entries)) + " " + time.Unix(0, seen.mtime).UTC().String() + "\n")
		c.listing(d, func(e dirent, j int64) {
			b.WriteString("  " + e.name + " " + e.typ.String() + "\n")
			if j >= 0 && c.fileName(uint32(j)) != e.name {
				b.WriteString("  (file index not found)\n")
			}
		})
		first, n := c.dirFiles(d)
		for j := first; j < first+n; j++ {
			e := c.fileEntry(j)
			if c.findFile(int32(d), c.fileName(j)) != int64(j) {
				b.WriteString("  (not found) ")
			}
			b.WriteString("  file " + c.fileName(j) + " " + e.id.String() + "\n")
		}
		of, no := c.dirOthers(d)
		for k := of; k < of+no; k++ {
			if ch := c.otherChild(k); ch != noChild && c.child(int32(d), c.otherName(k)) != int32(ch) {
				b.WriteString("  (child not found) " + c.otherName(k) + "\n")
			}
		}
	}
	return b.String()
}

// reencode writes a loaded cache again as it stands, no directory
// changed.
func reencode(t *testing.T, c *statCache) []byte {
	t.Helper()
	u := &cacheUpdate{old: c, anchor: c.anchor, rules: c.rules, tracked: c.tracked, root: newKid{old: c.root()}}
	var out bytes.Buffer
	if err := u.encode(&out, func(Hash) bool { return false }); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The format holds what was saved: a cache read and written again with
// nothing changed is byte for byte the file it was read from.
func TestStatCacheRoundTrip(t *testing.T) {
	data := cacheOfTree(t, map[string]string{
		"a": "a", "b/c": "c", "b/d/e": "e", "b/d/f.tmp": "ignored", "g/h.tmp": "ignored", "i/j/k/l": "deep",
	}, map[string]string{"b/link": "c"})
	c, err := decodeStatCache(data)
	if err != nil {
		t.Fatal(err)
	}
	if c.nDirs != 7 || c.storeKey != "key" {
		t.Fatalf("%d directories, store key %q", c.nDirs, c.storeKey)
	}
	if again := reencode(t, c); !bytes.Equal(again, data) {
		t.Fatalf("written again differs:\n%s\nfrom\n%s", listingOf(mustDecode(t, again)), listingOf(c))
	}
	if got := listingOf(c); strings.Contains(got, "not found") {
		t.Fatalf("lookups fail:\n%s", got)
	}
}

func mustDecode(t *testing.T, data []byte) *statCache {
	t.Helper()
	c, err := decodeStatCache(data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FuzzDecodeStatCache: whatever the file holds, decoding it never panics,
// and a cache it accepts can be walked (every lookup finds what the
// listing names) and written again to a file that decodes to the same
// directories. The checksum is mended first, so the fuzzer explores the
// structure rather than the CRC.
func FuzzDecodeStatCache(f *testing.F) {
	f.Add(cacheOfTree(f, map[string]string{"a": "a", "b/c": "c", "b/d/e.tmp": "x"}, nil))
	f.Add(cacheOfTree(f, map[string]string{"x/y/z": "z", "x/w": "w", "v.tmp": "v"}, map[string]string{"x/l": "w"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= 4 {
			body := data[:len(data)-4]
			binary.BigEndian.PutUint32(data[len(data)-4:], crc32.Checksum(body, castagnoli()))
		}
		c, err := decodeStatCache(data)
		if err != nil {
			return
		}
		got := listingOf(c)
		if strings.Contains(got, "not found") {
			t.Fatalf("an accepted cache fails its own lookups:\n%s", got)
		}
		again := reencode(t, c)
		c2, err := decodeStatCache(again)
		if err != nil {
			t.Fatalf("written again, it does not decode: %v", err)
		}
		if got2 := listingOf(c2); got2 != got {
			t.Fatalf("written again it holds\n%s\nnot\n%s", got2, got)
		}
		if !bytes.Equal(reencode(t, c2), again) {
			t.Fatal("writing it a second time changes it")
		}
	})
}
