package vcs

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
)

// The stat cache maps a file's stat data to its blob id so unchanged files
// are never read again, and a directory to its last tree id so unchanged
// trees are never encoded or written again. It is machine-local and only a
// hint: any doubt (bad checksum, truncation, another store, an anchor
// commit the store no longer has) discards it whole, and the snapshot
// rehashes everything (SPEC §9.4).
//
// It is kept per directory: the walker looks a directory up once and its
// files by name, and saving writes the directories as the snapshot built
// them.

// statEntry is the stat data an entry is trusted by.
type statEntry struct {
	size  int64
	mtime int64 // ns
	ctime int64 // ns
	ino   uint64
	mode  uint32 // git mode
	id    Hash
}

// cachedFile is one file of a directory, by name.
type cachedFile struct {
	name string
	e    statEntry
}

// cachedDir is one directory: its last tree and its files sorted by name,
// and what its last listing held (as git's untracked cache keeps it).
type cachedDir struct {
	tree  dirEntry
	files []cachedFile
	// seen is the directory's stat data when it was last listed; others
	// are the entries of that listing not in files (subdirectories,
	// links, ignored, left-out and racy files), sorted by name. listed
	// says seen may be trusted: the directory was on a file system whose
	// directory times mark every change of entries, and its mtime was
	// older than the racy margin.
	seen   dirStat
	listed bool
	others []dirent
}

// dirEntry is a directory's last tree id; stored says the store holds that
// tree (a tree later extended, such as a snapshot's root before ctxgit adds
// its own files, is never written, but its id still tells whether the
// directory changed).
type dirEntry struct {
	id      Hash
	stored  bool
	entries uint32 // entries in the tree, for the unchanged-directory check
}

type statCache struct {
	anchor   Hash   // a commit whose tree holds every id below
	storeKey string // identifies the object store the ids live in
	tracked  *trackedCache
	dirs     map[string]*cachedDir
}

// lookup finds a file of a cached directory by name.
func (d *cachedDir) lookup(name string) (statEntry, bool) {
	if i := d.index(name); i >= 0 {
		return d.files[i].e, true
	}
	return statEntry{}, false
}

// index is the position of a file in d.files, or -1.
func (d *cachedDir) index(name string) int {
	if d == nil {
		return -1
	}
	i := sort.Search(len(d.files), func(i int) bool { return d.files[i].name >= name })
	if i < len(d.files) && d.files[i].name == name {
		return i
	}
	return -1
}

// listing is the directory's entries as last listed: its files and the
// others, merged by name. A name in both (never written so) is listed
// once, as the other: a tree must not hold a name twice.
func (d *cachedDir) listing() []dirent {
	out := make([]dirent, 0, len(d.files)+len(d.others))
	i := 0
	for _, o := range d.others {
		for ; i < len(d.files) && d.files[i].name < o.name; i++ {
			out = append(out, dirent{d.files[i].name, 0})
		}
		if i < len(d.files) && d.files[i].name == o.name {
			i++
		}
		out = append(out, o)
	}
	for ; i < len(d.files); i++ {
		out = append(out, dirent{d.files[i].name, 0})
	}
	return out
}

// maxStatCache bounds the stat cache read: about 100 bytes a file, so
// room for two million files.
const maxStatCache = 256 << 20

var statCacheMagic = []byte("CTXGITSC\x00\x00\x00\x05")

// racyMargin: an entry modified this close to the snapshot's start could
// change again within the same timestamp tick unnoticed (git's "racy git"
// problem), so it is not cached and is rehashed next time. Two seconds
// covers coarse kernel clocks and filesystems with 1–2 s timestamps.
const racyMargin = 2 * time.Second

// castagnoli is made on first use: package load is on every hook's path.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func newStatCache(storeKey string, dirs int) *statCache {
	return &statCache{storeKey: storeKey, tracked: &trackedCache{}, dirs: make(map[string]*cachedDir, dirs)}
}

// loadStatCache reads the cache; a missing file is an empty cache, and a
// damaged one is an empty cache plus a reason to report.
func loadStatCache(path, storeKey string, has func(Hash) (bool, error)) (*statCache, string) {
	empty := newStatCache(storeKey, 0)
	if path == "" {
		return empty, ""
	}
	// The cache is ctxgit's own file, but nothing stops it being swapped
	// for a FIFO, a symlink or a huge sparse file: it is read only as a
	// regular file of bounded size.
	data, err := regfile.ReadFile(path, maxStatCache)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, ""
	}
	if err != nil {
		return empty, fmt.Sprintf("%s: unreadable (%v); rebuilt", path, err)
	}
	if len(data) >= len(statCacheMagic) && bytes.Equal(data[:8], statCacheMagic[:8]) {
		v := binary.BigEndian.Uint32(data[8:12])
		if cur := binary.BigEndian.Uint32(statCacheMagic[8:12]); v != 0 && v < cur {
			return empty, "" // an older format: quietly start over
		}
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
	if crc32.Checksum(body, castagnoli()) != sum {
		return nil, corrupt
	}
	// One string holds every name, so decoding allocates no string per
	// file.
	// The string shares data's memory rather than copying megabytes of
	// it: data is this decoder's own, never written after.
	rest := body[len(statCacheMagic):]
	r := &byteReader{b: rest}
	if len(rest) > 0 {
		r.s = unsafe.String(&rest[0], len(rest))
	}
	var anchor Hash
	r.hash(&anchor)
	storeKey := r.str()
	tracked := r.tracked()
	n := r.uvarint()
	if n > uint64(len(r.b)) || tracked == nil {
		return nil, corrupt
	}
	c := newStatCache(storeKey, int(n))
	c.anchor = anchor
	c.tracked = tracked
	for i := uint64(0); i < n && r.err == nil; i++ {
		path := r.str()
		d := &cachedDir{}
		r.hash(&d.tree.id)
		d.tree.stored = r.byte() == 1
		d.tree.entries = uint32(r.uvarint())
		d.listed = r.byte() == 1
		d.seen.mtime = r.varint()
		d.seen.ctime = r.varint()
		d.seen.size = r.varint()
		d.seen.ino = r.uvarint()
		d.seen.dev = r.uvarint()
		no := r.uvarint()
		if no > uint64(len(r.b)) {
			return nil, corrupt
		}
		if no > 0 {
			d.others = make([]dirent, no)
		}
		for j := range d.others {
			d.others[j] = dirent{r.str(), direntType(r.byte())}
			if j > 0 && d.others[j-1].name >= d.others[j].name {
				return nil, corrupt
			}
		}
		nf := r.uvarint()
		if nf > uint64(len(r.b)) {
			return nil, corrupt
		}
		d.files = make([]cachedFile, nf)
		for j := range d.files {
			f := &d.files[j]
			f.name = r.str()
			f.e.size = r.varint()
			f.e.mtime = r.varint()
			f.e.ctime = r.varint()
			f.e.ino = r.uvarint()
			f.e.mode = uint32(r.uvarint())
			r.hash(&f.e.id)
			if j > 0 && d.files[j-1].name >= f.name {
				return nil, corrupt // lookups need names in order
			}
		}
		c.dirs[path] = d
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, corrupt
	}
	return c, nil
}

// save writes the cache atomically. It is not fsynced: after a power loss
// a torn cache fails its checksum and is rebuilt. It is encoded straight
// to the file: at 100,000 files a buffer of it was a sixth of an
// incremental checkpoint's memory.
func (c *statCache) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteNoSyncWith(path, 0o600, c.encode)
}

// encode writes the cache to out, its checksum last.
func (c *statCache) encode(out io.Writer) error {
	sum := crc32.New(castagnoli())
	b := bufio.NewWriterSize(io.MultiWriter(out, sum), 64<<10)
	b.Write(statCacheMagic)
	b.Write(c.anchor[:])
	var tmp [binary.MaxVarintLen64]byte
	putU := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	putI := func(v int64) { b.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	putS := func(s string) { putU(uint64(len(s))); b.WriteString(s) }
	putS(c.storeKey)
	putB := func(v bool) {
		if v {
			b.WriteByte(1)
		} else {
			b.WriteByte(0)
		}
	}
	t := c.tracked
	putB(t.valid)
	if t.valid {
		putI(t.key.size)
		putI(t.key.mtime)
		putI(t.key.ctime)
		putU(t.key.ino)
		putB(t.key.fold)
		putU(uint64(len(t.roots)))
		for _, r := range t.roots {
			putS(r.path)
			putB(r.dir)
		}
		putU(uint64(len(t.paths)))
		for _, p := range t.paths {
			putS(p)
		}
	}
	putU(uint64(len(c.dirs)))
	for path, d := range c.dirs {
		putS(path)
		b.Write(d.tree.id[:])
		putB(d.tree.stored)
		putU(uint64(d.tree.entries))
		putB(d.listed)
		putI(d.seen.mtime)
		putI(d.seen.ctime)
		putI(d.seen.size)
		putU(d.seen.ino)
		putU(d.seen.dev)
		putU(uint64(len(d.others)))
		for _, o := range d.others {
			putS(o.name)
			b.WriteByte(direntCode(o.typ))
		}
		putU(uint64(len(d.files)))
		for i := range d.files {
			// By pointer: a copy of the record, its id sliced for
			// Write, escaped to the heap per file (8 MB at 100,000).
			f := &d.files[i]
			putS(f.name)
			putI(f.e.size)
			putI(f.e.mtime)
			putI(f.e.ctime)
			putU(f.e.ino)
			putU(uint64(f.e.mode))
			b.Write(f.e.id[:])
		}
	}
	if err := b.Flush(); err != nil {
		return err
	}
	_, err := out.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32()))
	return err
}

// direntCode is an entry's type as the cache stores it.
func direntCode(m fs.FileMode) byte {
	switch {
	case m.IsRegular():
		return 0
	case m.IsDir():
		return 1
	case m&fs.ModeSymlink != 0:
		return 2
	}
	return 3
}

// direntType is the type bits of a stored code; anything but a file, a
// directory or a link is kept as a pipe, which the walk leaves out.
func direntType(c byte) fs.FileMode {
	switch c {
	case 0:
		return 0
	case 1:
		return fs.ModeDir
	case 2:
		return fs.ModeSymlink
	}
	return fs.ModeNamedPipe
}

// tracked decodes the index section (trackedCache); nil when it is
// damaged.
func (r *byteReader) tracked() *trackedCache {
	t := &trackedCache{valid: r.byte() == 1}
	if !t.valid {
		return t
	}
	t.key.size = r.varint()
	t.key.mtime = r.varint()
	t.key.ctime = r.varint()
	t.key.ino = r.uvarint()
	t.key.fold = r.byte() == 1
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil
	}
	t.roots = make([]trackedRoot, n)
	for i := range t.roots {
		t.roots[i] = trackedRoot{r.str(), r.byte() == 1}
		if i > 0 && t.roots[i-1].path >= t.roots[i].path {
			return nil
		}
	}
	n = r.uvarint()
	if n > uint64(len(r.b)) {
		return nil
	}
	t.paths = make([]string, n)
	for i := range t.paths {
		t.paths[i] = r.str()
		if i > 0 && t.paths[i-1] >= t.paths[i] {
			return nil // lookups need paths in order
		}
	}
	if r.err != nil {
		return nil
	}
	return t
}

// byteReader decodes the cache; s is b as one string, so that names are
// substrings of it rather than an allocation each.
type byteReader struct {
	b   []byte
	s   string
	err error
}

func (r *byteReader) fail() { r.err, r.b, r.s = errors.New("truncated"), nil, "" }

// advance consumes n bytes of both views.
func (r *byteReader) advance(n int) {
	r.b = r.b[n:]
	r.s = r.s[n:]
}

func (r *byteReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.advance(1)
	return c
}

func (r *byteReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.advance(n)
	return v
}

func (r *byteReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.advance(n)
	return v
}

func (r *byteReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := r.s[:n]
	r.advance(int(n))
	return s
}

func (r *byteReader) hash(h *Hash) {
	if len(r.b) < len(h) {
		r.fail()
		return
	}
	copy(h[:], r.b)
	r.advance(len(h))
}
