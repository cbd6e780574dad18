package vcs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The stat cache maps a file's stat data to its blob id so unchanged files
// are never read again, and a directory to its last tree id so unchanged
// trees are never rewritten. It is machine-local and only a hint: any doubt
// (bad checksum, truncation, another store, an anchor commit the store no
// longer has) discards it whole, and the snapshot rehashes everything.

// statEntry is the stat data an entry is trusted by.
type statEntry struct {
	size  int64
	mtime int64 // ns
	ctime int64 // ns
	ino   uint64
	mode  uint32 // git mode
	id    Hash
}

type statCache struct {
	anchor   Hash   // a commit whose tree holds every id below
	storeKey string // identifies the object store the ids live in
	files    map[string]statEntry
	dirs     map[string]Hash
}

var statCacheMagic = []byte("CTXGITSC\x00\x00\x00\x01")

// racyMargin: an entry modified this close to the snapshot's start could
// change again within the same timestamp tick unnoticed (git's "racy git"
// problem), so it is not cached and is rehashed next time. Two seconds
// covers coarse kernel clocks and filesystems with 1–2 s timestamps.
const racyMargin = 2 * time.Second

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// loadStatCache reads the cache; a missing file is an empty cache, and a
// damaged one is an empty cache plus a reason to report.
func loadStatCache(path, storeKey string, has func(Hash) (bool, error)) (*statCache, string) {
	empty := &statCache{storeKey: storeKey, files: map[string]statEntry{}, dirs: map[string]Hash{}}
	if path == "" {
		return empty, ""
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, ""
	}
	if err != nil {
		return empty, fmt.Sprintf("%s: unreadable (%v); rebuilt", path, err)
	}
	c, err := decodeStatCache(data)
	if err != nil {
		return empty, fmt.Sprintf("%s: %v; rebuilt", path, err)
	}
	if c.storeKey != storeKey {
		return empty, "" // another store's cache: quietly start over
	}
	if ok, err := has(c.anchor); err != nil || !ok {
		return empty, fmt.Sprintf("%s: its checkpoint %s is gone from the store; rebuilt", path, c.anchor.Short())
	}
	return c, ""
}

func decodeStatCache(data []byte) (*statCache, error) {
	corrupt := errors.New("corrupt stat cache")
	if len(data) < len(statCacheMagic)+4 || !bytes.Equal(data[:len(statCacheMagic)], statCacheMagic) {
		return nil, corrupt
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, corrupt
	}
	r := &byteReader{b: body[len(statCacheMagic):]}
	c := &statCache{files: map[string]statEntry{}, dirs: map[string]Hash{}}
	r.hash(&c.anchor)
	c.storeKey = r.str()
	n := r.uvarint()
	for i := uint64(0); i < n && r.err == nil; i++ {
		p := r.str()
		var e statEntry
		e.size = r.varint()
		e.mtime = r.varint()
		e.ctime = r.varint()
		e.ino = r.uvarint()
		e.mode = uint32(r.uvarint())
		r.hash(&e.id)
		c.files[p] = e
	}
	n = r.uvarint()
	for i := uint64(0); i < n && r.err == nil; i++ {
		p := r.str()
		var h Hash
		r.hash(&h)
		c.dirs[p] = h
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, corrupt
	}
	return c, nil
}

// save writes the cache atomically. It is not fsynced: after a power loss
// a torn cache fails its checksum and is rebuilt.
func (c *statCache) save(path string) error {
	var b bytes.Buffer
	b.Write(statCacheMagic)
	b.Write(c.anchor[:])
	var tmp [binary.MaxVarintLen64]byte
	putU := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	putI := func(v int64) { b.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	putS := func(s string) { putU(uint64(len(s))); b.WriteString(s) }
	putS(c.storeKey)
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	putU(uint64(len(paths)))
	for _, p := range paths {
		e := c.files[p]
		putS(p)
		putI(e.size)
		putI(e.mtime)
		putI(e.ctime)
		putU(e.ino)
		putU(uint64(e.mode))
		b.Write(e.id[:])
	}
	dirs := make([]string, 0, len(c.dirs))
	for p := range c.dirs {
		dirs = append(dirs, p)
	}
	sort.Strings(dirs)
	putU(uint64(len(dirs)))
	for _, p := range dirs {
		putS(p)
		h := c.dirs[p]
		b.Write(h[:])
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.Checksum(b.Bytes(), castagnoli))
	b.Write(sum[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".statcache.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

type byteReader struct {
	b   []byte
	err error
}

func (r *byteReader) fail() { r.err, r.b = errors.New("truncated"), nil }

func (r *byteReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *byteReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *byteReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *byteReader) hash(h *Hash) {
	if len(r.b) < len(h) {
		r.fail()
		return
	}
	copy(h[:], r.b)
	r.b = r.b[len(h):]
}
