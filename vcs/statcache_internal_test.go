package vcs

import (
	"bytes"
	"encoding/binary"
	"fmt"
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
		// The numbers as numbers: a crafted cache may claim 2^32 entries.
		b.WriteString(fmt.Sprintf(" %d entries %s\n", tree.entries, time.Unix(0, seen.mtime).UTC()))
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
		if c, err := decodeStatCache(data); err == nil {
			checkDecoded(t, c)
		}
	})
}

// checkDecoded checks a cache decodeStatCache accepted: it can be walked
// (every lookup finds what the listing names), every record is one the
// walk from the root reaches, and written again it decodes to the same
// directories and is written the same a second time.
func checkDecoded(t *testing.T, c *statCache) {
	t.Helper()
	got := listingOf(c)
	if strings.Contains(got, "not found") {
		t.Fatalf("an accepted cache fails its own lookups:\n%s", got)
	}
	reached := 0
	var walk func(d int32)
	walk = func(d int32) {
		if reached++; reached > c.nDirs {
			t.Fatalf("the walk from the root reaches more than the %d records", c.nDirs)
		}
		first, n := c.dirOthers(uint32(d))
		for k := first; k < first+n; k++ {
			if ch := c.child(d, c.otherName(k)); ch >= 0 {
				walk(ch)
			}
		}
	}
	if c.root() >= 0 {
		walk(c.root())
	}
	if reached != c.nDirs {
		t.Fatalf("the walk from the root reaches %d of the %d records:\n%s", reached, c.nDirs, got)
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
}

// craftedCache is a stat cache file made record by record, as a crafted
// or damaged one would be: dirs, files and others are their tables'
// records, names the name heap. mutate, if set, changes the body before
// the checksum is put after it (which a crafter can always do).
type craftedCache struct {
	dirs, files, others [][]byte
	names               string
	storeKey            string
	tracked             []byte // the index section; {0} when nil
	mutate              func(body []byte)
}

func (cc craftedCache) bytes() []byte {
	le := binary.LittleEndian
	b := append([]byte(nil), statCacheMagic...)
	b = append(b, make([]byte, 40)...) // anchor and rules
	for _, n := range []int{len(cc.dirs), len(cc.files), len(cc.others), len(cc.names)} {
		b = le.AppendUint32(b, uint32(n))
	}
	b = le.AppendUint32(b, uint32(len(cc.storeKey)))
	b = append(b, cc.storeKey...)
	tracked := cc.tracked
	if tracked == nil {
		tracked = []byte{0}
	}
	b = le.AppendUint32(b, uint32(len(tracked)))
	b = append(b, tracked...)
	for _, table := range [][][]byte{cc.dirs, cc.files, cc.others} {
		for _, r := range table {
			b = append(b, r...)
		}
	}
	b = append(b, cc.names...)
	if cc.mutate != nil {
		cc.mutate(b)
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// The offset of the counts in a cache file: magic, anchor, rules.
const craftedCounts = 12 + 40

func craftDir(firstFile, nFiles, firstOther, nOthers uint32, flags byte) []byte {
	r := make([]byte, dirRecSize)
	le := binary.LittleEndian
	r[24] = flags
	le.PutUint32(r[28:], firstFile)
	le.PutUint32(r[32:], nFiles)
	le.PutUint32(r[36:], firstOther)
	le.PutUint32(r[40:], nOthers)
	return r
}

func craftFile(off uint32, n uint16) []byte {
	r := make([]byte, fileRecSize)
	binary.LittleEndian.PutUint32(r, off)
	binary.LittleEndian.PutUint16(r[4:], n)
	return r
}

func craftOther(off uint32, n uint16, typ byte, child uint32) []byte {
	r := make([]byte, otherRecSize)
	binary.LittleEndian.PutUint32(r, off)
	binary.LittleEndian.PutUint16(r[4:], n)
	r[6] = typ
	binary.LittleEndian.PutUint32(r[8:], child)
	return r
}

// A crafted cache is refused unless its every record is one the walk can
// use as it lies: a name inside the heap and a single path element, in
// order within its directory, ranges inside their tables, and each
// directory record reached once from the root as a subdirectory. What
// it accepts it can walk and write again unchanged.
func TestDecodeStatCacheCrafted(t *testing.T) {
	const dir, file = 1, 0
	oneDir := func(nFiles, nOthers uint32) [][]byte { return [][]byte{craftDir(0, nFiles, 0, nOthers, 0)} }
	cases := []struct {
		name   string
		cache  craftedCache
		accept bool
	}{
		{"one file", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 1)}, names: "a"}, true},
		{"a subdirectory", craftedCache{
			dirs:   [][]byte{craftDir(0, 0, 0, 1, 0), craftDir(0, 0, 1, 0, 0)},
			others: [][]byte{craftOther(0, 1, dir, 1)}, names: "s"}, true},
		{"no directory", craftedCache{}, true},
		{"a record no directory reaches, its own subdirectory", craftedCache{
			dirs:   [][]byte{craftDir(0, 0, 0, 0, 0), craftDir(0, 0, 0, 1, 0)},
			others: [][]byte{craftOther(0, 1, dir, 1)}, names: "x"}, false},
		{"a record no directory reaches, subdirectory of another", craftedCache{
			dirs:   [][]byte{craftDir(0, 0, 0, 0, 0), craftDir(0, 0, 0, 1, 0), craftDir(0, 0, 1, 1, 0)},
			others: [][]byte{craftOther(0, 1, dir, 1), craftOther(1, 1, dir, 2)}, names: "xy"}, false},
		{"the root as a subdirectory", craftedCache{
			dirs: oneDir(0, 1), others: [][]byte{craftOther(0, 1, dir, 0)}, names: "s"}, false},
		{"a subdirectory past the table", craftedCache{
			dirs: oneDir(0, 1), others: [][]byte{craftOther(0, 1, dir, 1)}, names: "s"}, false},
		{"a file as a subdirectory", craftedCache{
			dirs:   [][]byte{craftDir(0, 0, 0, 1, 0), craftDir(0, 0, 1, 0, 0)},
			others: [][]byte{craftOther(0, 1, file, 1)}, names: "s"}, false},
		{"a name past the heap", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 2)}, names: "a"}, false},
		{"a name offset that wraps", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(^uint32(0), 0xffff)}, names: "a"}, false},
		{"an empty name", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 0)}, names: "a"}, false},
		{"a name ..", craftedCache{dirs: oneDir(0, 1), others: [][]byte{craftOther(0, 2, file, noChild)}, names: ".."}, false},
		{"a name .", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 1)}, names: "."}, false},
		{"a path", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 4)}, names: "../a"}, false},
		{"a NUL in a name", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 2)}, names: "a\x00"}, false},
		{"files out of order", craftedCache{dirs: oneDir(2, 0),
			files: [][]byte{craftFile(0, 1), craftFile(1, 1)}, names: "ba"}, false},
		{"a file twice", craftedCache{dirs: oneDir(2, 0),
			files: [][]byte{craftFile(0, 1), craftFile(0, 1)}, names: "a"}, false},
		{"an unknown entry type", craftedCache{dirs: oneDir(0, 1), others: [][]byte{craftOther(0, 1, 4, noChild)}, names: "a"}, false},
		{"an unknown directory flag", craftedCache{dirs: [][]byte{craftDir(0, 0, 0, 0, 1<<7)}}, false},
		{"files past the table", craftedCache{dirs: oneDir(5, 0), files: [][]byte{craftFile(0, 1)}, names: "a"}, false},
		{"a file range that wraps", craftedCache{dirs: [][]byte{craftDir(0, ^uint32(0), 0, 0, 0), craftDir(^uint32(0), 2, 0, 0, 0)},
			files: [][]byte{craftFile(0, 1)}, names: "a"}, false},
		{"a file no directory holds", craftedCache{dirs: oneDir(0, 0), files: [][]byte{craftFile(0, 1)}, names: "a"}, false},
		{"files with no directory", craftedCache{files: [][]byte{craftFile(0, 1)}, names: "a"}, false},
		{"counts past the file", craftedCache{dirs: oneDir(1, 0), files: [][]byte{craftFile(0, 1)}, names: "a",
			mutate: func(b []byte) { binary.LittleEndian.PutUint32(b[craftedCounts:], ^uint32(0)) }}, false},
		{"a store key past the file", craftedCache{dirs: oneDir(0, 0),
			mutate: func(b []byte) { binary.LittleEndian.PutUint32(b[craftedCounts+16:], ^uint32(0)) }}, false},
		{"an index section past the file", craftedCache{dirs: oneDir(0, 0),
			mutate: func(b []byte) { binary.LittleEndian.PutUint32(b[craftedCounts+20:], ^uint32(0)) }}, false},
		{"an index section claiming 2^60 roots", craftedCache{dirs: oneDir(0, 0),
			tracked: binary.AppendUvarint([]byte{1, 0, 0, 0, 0, 0}, 1<<60)}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := decodeStatCache(tc.cache.bytes())
			if (err == nil) != tc.accept {
				t.Fatalf("accepted %v (%v), want %v", err == nil, err, tc.accept)
			}
			if err == nil {
				checkDecoded(t, c)
			}
		})
	}
}

// Every prefix of a real cache, and every byte of it changed, each with
// its checksum mended, decodes without a panic, and what is accepted can
// be walked and written again.
func TestDecodeStatCacheTruncatedAndChanged(t *testing.T) {
	good := cacheOfTree(t, map[string]string{"a": "a", "b/c": "c", "b/d/e": "e", "b/d/f.tmp": "x"}, nil)
	mend := func(b []byte) []byte {
		if len(b) >= 4 {
			binary.BigEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli()))
		}
		return b
	}
	for n := range len(good) {
		if c, err := decodeStatCache(mend(bytes.Clone(good[:n]))); err == nil {
			checkDecoded(t, c)
		}
	}
	for i := range len(good) - 4 {
		for _, v := range []byte{0, 1, 0x80, 0xff, good[i] + 1, good[i] - 1} {
			b := bytes.Clone(good)
			b[i] = v
			if c, err := decodeStatCache(mend(b)); err == nil {
				checkDecoded(t, c)
			}
		}
	}
}
