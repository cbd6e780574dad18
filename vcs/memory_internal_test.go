package vcs

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"unsafe"
)

// TestSnapNodeSize: a first snapshot holds one node per file, its largest
// live cost (issue 27 item 4); a field added to it belongs behind dir.
func TestSnapNodeSize(t *testing.T) {
	if n := unsafe.Sizeof(snapNode{}); n > 96 {
		t.Fatalf("snapNode is %d bytes; keep it at 96 or less (put what only directories or links need in snapDir)", n)
	}
}

// TestSnapNodePath: a node's path is rebuilt from its parents' names, as
// the walk named it.
func TestSnapNodePath(t *testing.T) {
	root := &snapNode{isDir: true, dir: &snapDir{}}
	a := &snapNode{name: "a", isDir: true, parent: root, dir: &snapDir{}}
	b := &snapNode{name: "b", isDir: true, parent: a, dir: &snapDir{}}
	f := &snapNode{name: "f.go", parent: b}
	top := &snapNode{name: "top", parent: root}
	link := &snapNode{name: "l", parent: a, st: statEntry{mode: ModeSymlink}, dir: &snapDir{link: []byte("../x")}}
	for n, want := range map[*snapNode]string{root: "", a: "a", b: "a/b", f: "a/b/f.go", top: "top", link: "a/l"} {
		if got := n.path(); got != want {
			t.Errorf("path of %q = %q, want %q", n.name, got, want)
		}
	}
	if string(link.link()) != "../x" || f.link() != nil || a.link() != nil {
		t.Fatalf("link() = %q, %q, %q", link.link(), f.link(), a.link())
	}
}

// TestParseTreeModeAsParseUint: the tree walk's mode parser accepts and
// refuses exactly what strconv.ParseUint(s, 8, 32) does.
func TestParseTreeModeAsParseUint(t *testing.T) {
	for _, s := range []string{"", "0", "100644", "100755", "120000", "40000", "160000", "8", "1_0", "+1", "-1",
		" 1", "17777777777", "37777777777", "40000000000", "777777777777777777777777", "0x10", "10a"} {
		want, werr := strconv.ParseUint(s, 8, 32)
		got, ok := parseTreeMode([]byte(s))
		if ok != (werr == nil) || ok && uint64(got) != want {
			t.Errorf("parseTreeMode(%q) = %d, %v; ParseUint %d, %v", s, got, ok, want, werr)
		}
	}
}

// TestForEachTreeEntryAsDecodeTree: walking a tree in place visits what
// decoding it gives, and refuses what it refuses.
func TestForEachTreeEntryAsDecodeTree(t *testing.T) {
	entries := []TreeEntry{
		{Name: "a.go", Mode: ModeFile, ID: HashObject(BlobObject, []byte("a"))},
		{Name: "dir", Mode: ModeDir, ID: HashObject(TreeObject, nil)},
		{Name: "link", Mode: ModeSymlink, ID: HashObject(BlobObject, []byte("x"))},
	}
	SortTree(entries)
	data := EncodeTree(entries)
	var got []TreeEntry
	if err := forEachTreeEntry(data, func(mode uint32, name []byte, id Hash) error {
		got = append(got, TreeEntry{Name: string(name), Mode: mode, ID: id})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(entries) {
		t.Fatalf("walked %v, want %v", got, entries)
	}
	for _, bad := range [][]byte{[]byte("100644"), []byte("10064x a\x00"), append([]byte("100644 a\x00"), make([]byte, 19)...)} {
		if err := forEachTreeEntry(bad, func(uint32, []byte, Hash) error { return nil }); err == nil {
			t.Errorf("%q walked without an error", bad)
		}
		if _, err := DecodeTree(bad); err == nil {
			t.Errorf("%q decoded without an error", bad)
		}
	}
}

// TestHashObjectConcurrent: the pooled SHA-1 states give every caller its
// own object's id, from many goroutines at once.
func TestHashObjectConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				data := bytes.Repeat([]byte{byte(g)}, i)
				want := sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(data))), data...))
				if got := HashObject(BlobObject, data); got != Hash(want) {
					t.Errorf("HashObject of %d bytes of %d = %s, want %x", i, g, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
