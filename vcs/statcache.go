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
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/gcpolicy"
	"github.com/ctxgit/ctxgit/internal/regfile"
)

// The stat cache maps a file's stat data to its blob id so unchanged files
// are never read again, and a directory to its last tree id so unchanged
// trees are never encoded or written again. It is machine-local and only a
// hint: any doubt (bad checksum, truncation, another store, an anchor
// commit the store no longer has) discards it whole, and the snapshot
// rehashes everything (SPEC §9.4).
//
// It is used as it lies in the file: fixed-size records in tables, names
// in one heap, directories as a tree of record indices. Loading checks the
// checksum and the structure and decodes nothing per file; the walk finds
// a directory's record from its parent's by name and a file's by binary
// search, and a snapshot that changes nothing allocates nothing per file
// or per directory for the cache (docs/design.md, "The stat cache").

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

// dirEntry is a directory's last tree id; stored says the store holds that
// tree (a tree later extended, such as a snapshot's root before ctxgit adds
// its own files, is never written, but its id still tells whether the
// directory changed).
type dirEntry struct {
	id      Hash
	stored  bool
	entries uint32 // entries in the tree, for the unchanged-directory check
}

// The file, format version 6. Integers in the tables are little-endian
// and of fixed size, so a record is read where it lies:
//
//	magic      "CTXGITSC", version (4 bytes, big-endian)
//	anchor     20 bytes
//	rules      20 bytes: what the ignore rules outside the walk were
//	counts     directories, files, others, name bytes (uint32 each)
//	store key  length (uint32) and bytes
//	index      length (uint32) and the index section (trackedCache)
//	dirs       92 bytes each, breadth first from the root (record 0)
//	files      64 bytes each, each directory's sorted by name
//	others     12 bytes each, each directory's sorted by name
//	names      every name, each directory's files' then its others'
//	checksum   CRC-32C of everything before (4 bytes, big-endian)
//
// A directory's subdirectories are among its others, each naming its
// record; breadth first, those records follow one another, so the
// structure is checked in one pass and cannot loop.
var statCacheMagic = []byte("CTXGITSC\x00\x00\x00\x06")

const (
	// dir: tree id 20, entries 4, flags 1, pad 3, first file 4, files
	// 4, first other 4, others 4, seen mtime, ctime, size, inode,
	// device 8 each, its .gitignore's sum 8.
	dirRecSize = 92
	// file: name offset 4, name length 2, pad 2, mode 4, size, mtime,
	// ctime, inode 8 each, blob id 20.
	fileRecSize = 64
	// other: name offset 4, name length 2, type 1, flags 1 (otherLeft),
	// child record 4.
	otherRecSize = 12
	// noChild is an other's child when it is not a recorded directory.
	noChild = ^uint32(0)
	// maxCachedName is the longest name a record holds; a longer one is
	// not cached (no file system allows one).
	maxCachedName = 1<<16 - 1
)

// A directory record's flags.
const (
	dirStored     = 1 << iota // the store holds its tree
	dirListed                 // its listing may be trusted against seen
	dirHasTree                // it has a tree (an empty directory has none)
	dirRules                  // its others say which entries were left out, and its .gitignore's sum is kept
	dirAskedIndex             // deciding its entries asked git's index (tracked.go)
	dirFlags      = dirStored | dirListed | dirHasTree | dirRules | dirAskedIndex
)

// otherLeft marks an other left out by a rule that asks nothing of the
// index: ctxgit's own outputs, snapshot.excludes.
const otherLeft = 1

// maxStatCache bounds the stat cache read: about 100 bytes a file and
// directory, so room for some ten million files.
const maxStatCache = 1 << 30

// racyMargin: an entry modified this close to the snapshot's start could
// change again within the same timestamp tick unnoticed (git's "racy git"
// problem), so it is not cached and is rehashed next time. Two seconds
// covers coarse kernel clocks and filesystems with 1–2 s timestamps.
const racyMargin = 2 * time.Second

// castagnoli is made on first use: package load is on every hook's path.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// statCache is a loaded cache: the file's bytes, sliced into its tables.
type statCache struct {
	anchor   Hash   // a commit whose tree holds every id below
	rules    Hash   // the ignore rules outside the walk (walker.rulesKey)
	storeKey string // identifies the object store the ids live in
	tracked  *trackedCache
	size     int64 // bytes of the file, held until the new cache is saved

	nDirs                int
	dirs, files, others  []byte
	names                string // shares the file's bytes
	nFilesAll, nOtherAll int
}

func emptyStatCache(storeKey string) *statCache {
	return &statCache{storeKey: storeKey, tracked: &trackedCache{}}
}

// Accessors of a record, by index. Indices come from the loaded file,
// whose structure decodeStatCache checked.

func (c *statCache) dirRec(d uint32) []byte {
	return c.dirs[int(d)*dirRecSize : int(d+1)*dirRecSize]
}

func (c *statCache) dirTree(d uint32) (dirEntry, bool) {
	r := c.dirRec(d)
	var e dirEntry
	copy(e.id[:], r)
	e.entries = binary.LittleEndian.Uint32(r[20:])
	e.stored = r[24]&dirStored != 0
	return e, r[24]&dirHasTree != 0
}

// dirRules is what a directory's record says of how its entries were
// decided: whether it says it (rules), its .gitignore's sum, and whether
// deciding asked git's index.
func (c *statCache) dirRules(d uint32) (rules bool, sum uint64, askedIndex bool) {
	r := c.dirRec(d)
	return r[24]&dirRules != 0, binary.LittleEndian.Uint64(r[84:]), r[24]&dirAskedIndex != 0
}

func (c *statCache) dirSeen(d uint32) (dirStat, bool) {
	r := c.dirRec(d)
	le := binary.LittleEndian
	return dirStat{mtime: int64(le.Uint64(r[44:])), ctime: int64(le.Uint64(r[52:])), size: int64(le.Uint64(r[60:])),
		ino: le.Uint64(r[68:]), dev: le.Uint64(r[76:])}, r[24]&dirListed != 0
}

// dirFiles is the range of the directory's files in the file table.
func (c *statCache) dirFiles(d uint32) (first, n uint32) {
	r := c.dirRec(d)
	return binary.LittleEndian.Uint32(r[28:]), binary.LittleEndian.Uint32(r[32:])
}

// dirOthers is the range of the directory's others in the other table.
func (c *statCache) dirOthers(d uint32) (first, n uint32) {
	r := c.dirRec(d)
	return binary.LittleEndian.Uint32(r[36:]), binary.LittleEndian.Uint32(r[40:])
}

func (c *statCache) fileRec(j uint32) []byte {
	return c.files[int(j)*fileRecSize : int(j+1)*fileRecSize]
}

// recName is the name a file's or an other's record holds: both begin
// with its offset in the name heap and its length.
func (c *statCache) recName(r []byte) string {
	off := binary.LittleEndian.Uint32(r)
	return c.names[off : off+uint32(binary.LittleEndian.Uint16(r[4:]))]
}

func (c *statCache) fileName(j uint32) string { return c.recName(c.fileRec(j)) }

func (c *statCache) fileEntry(j uint32) statEntry {
	r := c.fileRec(j)
	le := binary.LittleEndian
	e := statEntry{mode: le.Uint32(r[8:]), size: int64(le.Uint64(r[12:])), mtime: int64(le.Uint64(r[20:])),
		ctime: int64(le.Uint64(r[28:])), ino: le.Uint64(r[36:])}
	copy(e.id[:], r[44:])
	return e
}

func (c *statCache) otherRec(k uint32) []byte {
	return c.others[int(k)*otherRecSize : int(k+1)*otherRecSize]
}

func (c *statCache) otherName(k uint32) string { return c.recName(c.otherRec(k)) }

func (c *statCache) other(k uint32) dirent {
	r := c.otherRec(k)
	return dirent{name: c.otherName(k), typ: direntType(r[6]), left: r[7]&otherLeft != 0}
}

func (c *statCache) otherChild(k uint32) uint32 {
	return binary.LittleEndian.Uint32(c.otherRec(k)[8:])
}

// findFile is the index of the directory's file of that name, or -1.
func (c *statCache) findFile(d int32, name string) int64 {
	if d < 0 {
		return -1
	}
	first, n := c.dirFiles(uint32(d))
	i := sort.Search(int(n), func(i int) bool { return c.fileName(first+uint32(i)) >= name })
	if i < int(n) && c.fileName(first+uint32(i)) == name {
		return int64(first) + int64(i)
	}
	return -1
}

// child is the record of the directory's subdirectory of that name, or -1.
func (c *statCache) child(d int32, name string) int32 {
	if d < 0 {
		return -1
	}
	first, n := c.dirOthers(uint32(d))
	i := sort.Search(int(n), func(i int) bool { return c.otherName(first+uint32(i)) >= name })
	if i < int(n) && c.otherName(first+uint32(i)) == name {
		if ch := c.otherChild(first + uint32(i)); ch != noChild {
			return int32(ch)
		}
	}
	return -1
}

// root is the root directory's record, or -1 in an empty cache.
func (c *statCache) root() int32 {
	if c.nDirs == 0 {
		return -1
	}
	return 0
}

// listing calls f with the directory's entries as last listed, in name
// order: its files, each with its index in the file table, and its
// others (index -1), merged. A name in both (never written so) is given
// once, as the other: a tree must not hold a name twice.
func (c *statCache) listing(d uint32, f func(e dirent, file int64)) {
	ff, nf := c.dirFiles(d)
	of, no := c.dirOthers(d)
	i, end := ff, ff+nf
	for k := of; k < of+no; k++ {
		o := c.other(k)
		for ; i < end && c.fileName(i) < o.name; i++ {
			f(dirent{name: c.fileName(i)}, int64(i))
		}
		if i < end && c.fileName(i) == o.name {
			i++
		}
		f(o, -1)
	}
	for ; i < end; i++ {
		f(dirent{name: c.fileName(i)}, int64(i))
	}
}

// loadStatCache reads the cache; a missing file is an empty cache, and a
// damaged one is an empty cache plus a reason to report.
func loadStatCache(path, storeKey string, has func(Hash) (bool, error)) (*statCache, string) {
	empty := emptyStatCache(storeKey)
	if path == "" {
		return empty, ""
	}
	// The cache is ctxgit's own file, but nothing stops it being swapped
	// for a FIFO, a symlink or a huge sparse file: it is read only as a
	// regular file of bounded size.
	data, err := readStatCache(path)
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

// readStatCache reads the cache file whole. What it holds stays live
// until the new cache is saved, so the collector's limit is raised for it
// before it is read (a no-op in a program that did not start the
// policy): under a fixed limit, a cache larger than it made a checkpoint
// collect without end.
func readStatCache(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size := f.Info().Size; size <= maxStatCache {
		gcpolicy.Expect(size)
	}
	// A file that shrank while read is returned short: the checksum
	// tells.
	return f.ReadAll(maxStatCache)
}

var errCorruptStatCache = errors.New("corrupt stat cache")

// decodeStatCache checks the file and slices it into its tables. Every
// record is checked once here, so the walk can index them without
// doubt: names inside the name heap, each a single path element, sorted
// within a directory; each directory's ranges where the one before it
// left off; subdirectory links breadth first, each record reached once.
func decodeStatCache(data []byte) (*statCache, error) {
	corrupt := errCorruptStatCache
	if len(data) < len(statCacheMagic)+4 || !bytes.Equal(data[:len(statCacheMagic)], statCacheMagic) {
		return nil, corrupt
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli()) != sum {
		return nil, corrupt
	}
	rest := body[len(statCacheMagic):]
	// The names are slices of one string sharing data's memory: data is
	// this decoder's own, never written after.
	var all string
	if len(rest) > 0 {
		all = unsafe.String(&rest[0], len(rest))
	}
	const head = 20 + 20 + 4*4
	if len(rest) < head {
		return nil, corrupt
	}
	le := binary.LittleEndian
	c := &statCache{size: int64(len(data))}
	copy(c.anchor[:], rest)
	copy(c.rules[:], rest[20:])
	nDirs, nFiles, nOthers, nNames := le.Uint32(rest[40:]), le.Uint32(rest[44:]), le.Uint32(rest[48:]), le.Uint32(rest[52:])
	pos := uint64(head)
	section := func() (string, bool) {
		if uint64(len(rest)) < pos+4 {
			return "", false
		}
		n := uint64(le.Uint32(rest[pos:]))
		pos += 4
		if uint64(len(rest)) < pos+n {
			return "", false
		}
		s := all[pos : pos+n]
		pos += n
		return s, true
	}
	storeKey, ok1 := section()
	trackedBytes, ok2 := section()
	if !ok1 || !ok2 {
		return nil, corrupt
	}
	c.storeKey = storeKey
	tr := &byteReader{b: []byte(trackedBytes), s: trackedBytes}
	if c.tracked = tr.tracked(); c.tracked == nil || tr.err != nil || len(tr.b) != 0 {
		return nil, corrupt
	}
	tables := uint64(nDirs)*dirRecSize + uint64(nFiles)*fileRecSize + uint64(nOthers)*otherRecSize + uint64(nNames)
	if uint64(len(rest))-pos != tables || nDirs == 0 && (nFiles != 0 || nOthers != 0) {
		return nil, corrupt
	}
	take := func(n uint64) []byte {
		b := rest[pos : pos+n]
		pos += n
		return b
	}
	c.nDirs, c.nFilesAll, c.nOtherAll = int(nDirs), int(nFiles), int(nOthers)
	c.dirs = take(uint64(nDirs) * dirRecSize)
	c.files = take(uint64(nFiles) * fileRecSize)
	c.others = take(uint64(nOthers) * otherRecSize)
	names := take(uint64(nNames))
	if len(names) > 0 {
		c.names = unsafe.String(&names[0], len(names))
	}
	// A name is one path element: the walk hands cached names to
	// fstatat and to the store's paths.
	if bytes.IndexByte(names, '/') >= 0 || bytes.IndexByte(names, 0) >= 0 || runtime.GOOS == "windows" && bytes.IndexByte(names, '\\') >= 0 {
		return nil, corrupt
	}
	name := func(rec []byte) (string, bool) {
		off, n := uint64(le.Uint32(rec)), uint64(le.Uint16(rec[4:]))
		if n == 0 || off+n > uint64(len(names)) {
			return "", false
		}
		s := c.names[off : off+n]
		return s, s != "." && s != ".."
	}
	var fileSum, otherSum uint64
	nextChild := uint32(1)
	for d := range nDirs {
		// Breadth first, a record is named as a subdirectory by one
		// before it: one that is not yet is reached by no directory
		// (it could name itself, or the next such record).
		if d > 0 && d >= nextChild {
			return nil, corrupt
		}
		r := c.dirRec(d)
		ff, nf := c.dirFiles(d)
		of, no := c.dirOthers(d)
		if uint64(ff) != fileSum || uint64(of) != otherSum || fileSum+uint64(nf) > uint64(nFiles) || otherSum+uint64(no) > uint64(nOthers) || r[24]&^dirFlags != 0 {
			return nil, corrupt
		}
		fileSum += uint64(nf)
		otherSum += uint64(no)
		prev := ""
		for j := ff; j < ff+nf; j++ {
			s, ok := name(c.fileRec(j))
			if !ok || j > ff && s <= prev {
				return nil, corrupt // lookups need names in order
			}
			prev = s
		}
		for k := of; k < of+no; k++ {
			rec := c.otherRec(k)
			s, ok := name(rec)
			if !ok || k > of && s <= prev || rec[6] > 3 || rec[7]&^otherLeft != 0 {
				return nil, corrupt
			}
			prev = s
			if ch := le.Uint32(rec[8:]); ch != noChild {
				if ch != nextChild || rec[6] != direntCode(fs.ModeDir) {
					return nil, corrupt
				}
				nextChild++
			}
		}
	}
	if fileSum != uint64(nFiles) || otherSum != uint64(nOthers) || nDirs > 0 && nextChild != nDirs {
		return nil, corrupt
	}
	return c, nil
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

// newDir is the new cache's record of a directory that differs from its
// old record, or has none: what the snapshot found, with what stayed as
// it was taken from the old record.
type newDir struct {
	old     int32 // the old record, -1 for none
	tree    dirEntry
	hasTree bool
	seen    dirStat
	listed  bool
	// ignoreSum is its .gitignore's sum; askedIndex, that deciding its
	// entries asked git's index (its others' left flags say the rest).
	ignoreSum  uint64
	askedIndex bool
	// files, others and kids are nil with their same flag set: the old
	// record's stand.
	files      []cachedFile // sorted by name
	others     []dirent     // sorted by name
	kids       []newKid     // recorded subdirectories, sorted by name
	sameFiles  bool
	sameOthers bool
	sameKids   bool
}

// newKid is a recorded subdirectory of a newDir.
type newKid struct {
	name string
	old  int32   // its old record, -1 for none
	nd   *newDir // its new record, nil when identical to the old
}

// cacheUpdate is the cache a snapshot leaves: the old one, with the
// records of the directories that differ from theirs. Identical
// directories cost nothing until it is saved.
type cacheUpdate struct {
	old       *statCache
	anchor    Hash
	rules     Hash
	tracked   *trackedCache
	root      newKid // name unused
	overrides map[int32]*newDir
}

// encRef is a directory of the new cache, as the encoder walks it.
type encRef struct {
	old int32
	nd  *newDir
}

// resolve finds the new record of an old directory, if it has one.
func (u *cacheUpdate) resolve(r encRef) encRef {
	if r.nd == nil && r.old >= 0 {
		r.nd = u.overrides[r.old]
	}
	return r
}

// files of a directory: its count, and f called for each in order.
func (u *cacheUpdate) files(r encRef, f func(name string, e statEntry)) int {
	if r.nd != nil && !r.nd.sameFiles {
		if f != nil {
			for _, x := range r.nd.files {
				f(x.name, x.e)
			}
		}
		return len(r.nd.files)
	}
	first, n := u.old.dirFiles(uint32(r.old))
	if f != nil {
		for j := first; j < first+n; j++ {
			f(u.old.fileName(j), u.old.fileEntry(j))
		}
	}
	return int(n)
}

// others calls f with each of a directory's others, in name order, and
// the subdirectory record it links to (ok false for none). A recorded
// subdirectory the others do not name is not kept.
func (u *cacheUpdate) others(r encRef, f func(o dirent, kid encRef, ok bool)) {
	if r.nd == nil {
		first, n := u.old.dirOthers(uint32(r.old))
		for k := first; k < first+n; k++ {
			ch := u.old.otherChild(k)
			f(u.old.other(k), encRef{old: int32(ch)}, ch != noChild)
		}
		return
	}
	var kids []newKid
	if r.nd.sameKids {
		first, n := u.old.dirOthers(uint32(r.old))
		for k := first; k < first+n; k++ {
			if ch := u.old.otherChild(k); ch != noChild {
				kids = append(kids, newKid{name: u.old.otherName(k), old: int32(ch)})
			}
		}
	} else {
		kids = r.nd.kids
	}
	each := func(o dirent) {
		for len(kids) > 0 && kids[0].name < o.name {
			kids = kids[1:]
		}
		if len(kids) > 0 && kids[0].name == o.name && o.typ.IsDir() {
			f(o, encRef{old: kids[0].old, nd: kids[0].nd}, true)
			kids = kids[1:]
			return
		}
		f(o, encRef{}, false)
	}
	if r.nd.sameOthers {
		first, n := u.old.dirOthers(uint32(r.old))
		for k := first; k < first+n; k++ {
			each(u.old.other(k))
		}
		return
	}
	for _, o := range r.nd.others {
		each(o)
	}
}

// dirInfo is what a directory's record holds besides its entries.
type dirInfo struct {
	tree       dirEntry
	hasTree    bool
	seen       dirStat
	listed     bool
	rules      bool
	ignoreSum  uint64
	askedIndex bool
}

// dir is a directory's record, but its entries.
func (u *cacheUpdate) dir(r encRef) dirInfo {
	if r.nd != nil {
		return dirInfo{r.nd.tree, r.nd.hasTree, r.nd.seen, r.nd.listed, true, r.nd.ignoreSum, r.nd.askedIndex}
	}
	var i dirInfo
	i.tree, i.hasTree = u.old.dirTree(uint32(r.old))
	i.seen, i.listed = u.old.dirSeen(uint32(r.old))
	i.rules, i.ignoreSum, i.askedIndex = u.old.dirRules(uint32(r.old))
	return i
}

// save writes the cache atomically. It is not fsynced: after a power loss
// a torn cache fails its checksum and is rebuilt. It is encoded straight
// to the file, table by table, from the old cache and the new records:
// nothing of its size is built in memory.
func (u *cacheUpdate) save(path string, has func(Hash) bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteNoSyncWith(path, 0o600, func(w io.Writer) error { return u.encode(w, has) })
}

// encode writes the cache to out, its checksum last. has says whether
// the store holds a tree not yet known to be stored.
func (u *cacheUpdate) encode(out io.Writer, has func(Hash) bool) error {
	// The directories breadth first, each with where its first
	// subdirectory and its names will be.
	type placed struct {
		r          encRef
		firstChild uint32
		names      uint32
	}
	// Breadth first, the queue is the order itself.
	order := make([]placed, 0, u.old.nDirs+len(u.overrides)+1)
	var nFiles, nOthers, nNames uint64
	if u.root.nd != nil || u.root.old >= 0 {
		order = append(order, placed{r: u.resolve(encRef{old: u.root.old, nd: u.root.nd})})
	}
	for i := 0; i < len(order); i++ {
		p := &order[i]
		p.firstChild, p.names = uint32(len(order)), uint32(nNames)
		nFiles += uint64(u.files(p.r, func(name string, _ statEntry) { nNames += uint64(len(name)) }))
		u.others(p.r, func(o dirent, kid encRef, ok bool) {
			nOthers++
			nNames += uint64(len(o.name))
			if ok {
				order = append(order, placed{r: u.resolve(kid)})
			}
		})
	}
	if nFiles > 1<<32-1 || nOthers > 1<<32-1 || nNames > 1<<32-1 {
		return errors.New("too large to cache")
	}
	sum := crc32.New(castagnoli())
	b := bufio.NewWriterSize(io.MultiWriter(out, sum), 64<<10)
	le := binary.LittleEndian
	var rec [dirRecSize]byte
	put32 := func(v uint32) { b.Write(le.AppendUint32(rec[:0], v)) }
	b.Write(statCacheMagic)
	b.Write(u.anchor[:])
	b.Write(u.rules[:])
	put32(uint32(len(order)))
	put32(uint32(nFiles))
	put32(uint32(nOthers))
	put32(uint32(nNames))
	put32(uint32(len(u.old.storeKey)))
	b.WriteString(u.old.storeKey)
	var tracked bytes.Buffer
	u.tracked.encode(&tracked)
	put32(uint32(tracked.Len()))
	b.Write(tracked.Bytes())

	var firstFile, firstOther uint32
	for _, p := range order {
		i := u.dir(p.r)
		t := i.tree
		if i.hasTree && !t.stored {
			t.stored = has(t.id)
		}
		clear(rec[:])
		copy(rec[:], t.id[:])
		le.PutUint32(rec[20:], t.entries)
		for _, f := range []struct {
			set  bool
			flag byte
		}{{t.stored, dirStored}, {i.listed, dirListed}, {i.hasTree, dirHasTree}, {i.rules, dirRules}, {i.askedIndex, dirAskedIndex}} {
			if f.set {
				rec[24] |= f.flag
			}
		}
		seen := i.seen
		nf := uint32(u.files(p.r, nil))
		var no uint32
		u.others(p.r, func(dirent, encRef, bool) { no++ })
		le.PutUint32(rec[28:], firstFile)
		le.PutUint32(rec[32:], nf)
		le.PutUint32(rec[36:], firstOther)
		le.PutUint32(rec[40:], no)
		le.PutUint64(rec[44:], uint64(seen.mtime))
		le.PutUint64(rec[52:], uint64(seen.ctime))
		le.PutUint64(rec[60:], uint64(seen.size))
		le.PutUint64(rec[68:], seen.ino)
		le.PutUint64(rec[76:], seen.dev)
		le.PutUint64(rec[84:], i.ignoreSum)
		b.Write(rec[:dirRecSize])
		firstFile += nf
		firstOther += no
	}
	for _, p := range order {
		off := p.names
		u.files(p.r, func(name string, e statEntry) {
			clear(rec[:fileRecSize])
			le.PutUint32(rec[0:], off)
			le.PutUint16(rec[4:], uint16(len(name)))
			le.PutUint32(rec[8:], e.mode)
			le.PutUint64(rec[12:], uint64(e.size))
			le.PutUint64(rec[20:], uint64(e.mtime))
			le.PutUint64(rec[28:], uint64(e.ctime))
			le.PutUint64(rec[36:], e.ino)
			copy(rec[44:], e.id[:])
			b.Write(rec[:fileRecSize])
			off += uint32(len(name))
		})
	}
	for _, p := range order {
		off := p.names
		u.files(p.r, func(name string, _ statEntry) { off += uint32(len(name)) })
		child := p.firstChild
		u.others(p.r, func(o dirent, _ encRef, ok bool) {
			clear(rec[:otherRecSize])
			le.PutUint32(rec[0:], off)
			le.PutUint16(rec[4:], uint16(len(o.name)))
			rec[6] = direntCode(o.typ)
			if o.left {
				rec[7] = otherLeft
			}
			ch := noChild
			if ok {
				ch = child
				child++
			}
			le.PutUint32(rec[8:], ch)
			b.Write(rec[:otherRecSize])
			off += uint32(len(o.name))
		})
	}
	for _, p := range order {
		u.files(p.r, func(name string, _ statEntry) { b.WriteString(name) })
		u.others(p.r, func(o dirent, _ encRef, _ bool) { b.WriteString(o.name) })
	}
	if err := b.Flush(); err != nil {
		return err
	}
	_, err := out.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32()))
	return err
}

// encode writes the index section (trackedCache).
func (t *trackedCache) encode(b *bytes.Buffer) {
	var tmp [binary.MaxVarintLen64]byte
	putU := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	putI := func(v int64) { b.Write(tmp[:binary.PutVarint(tmp[:], v)]) }
	putS := func(s string) { putU(uint64(len(s))); b.WriteString(s) }
	putB := func(v bool) {
		if v {
			b.WriteByte(1)
		} else {
			b.WriteByte(0)
		}
	}
	putB(t.valid)
	if !t.valid {
		return
	}
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

// byteReader decodes the index section; s is b as one string, so that
// paths are substrings of it rather than an allocation each.
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

// sortFiles sorts a directory's new file records by name.
func sortFiles(files []cachedFile) {
	slices.SortFunc(files, func(a, b cachedFile) int { return strings.Compare(a.name, b.name) })
}
