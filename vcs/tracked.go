package vcs

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// The walk asks whether git tracks a path only for what an ignore or
// secret rule matched (git keeps a tracked file whatever the rules say).
// Decoding git's whole index for that was a seventh of a no-change
// checkpoint's CPU and 37 MiB at 100,000 files, so the stat cache keeps
// what the walk needed of it: the paths it asked about ("roots") and the
// index's paths at or below them, keyed on the index file's stat data.
// While the index keeps that stat data, a question at or below a root is
// answered from the cache; any other question, or a changed index,
// decodes the index (once per snapshot, by the walker that needs it; the
// others keep walking).

// indexKey identifies one version of the index file: git replaces it by
// rename, so a rewrite changes the inode or the times. fold is part of it
// because the kept paths are stored as the rules match them.
type indexKey struct {
	size, mtime, ctime int64
	ino                uint64
	fold               bool
}

// trackedRoot is one path the walk asked about, outside any directory
// already entered for its tracked files.
type trackedRoot struct {
	path string
	dir  bool
}

// trackedCache is what the stat cache keeps of the index. valid is false
// when it keeps nothing.
type trackedCache struct {
	valid bool
	key   indexKey
	roots []trackedRoot // sorted by path
	paths []string      // sorted: index paths at or below a root, as matched
}

func (c *trackedCache) equal(o *trackedCache) bool {
	return c.valid == o.valid && c.key == o.key && slices.Equal(c.roots, o.roots) && slices.Equal(c.paths, o.paths)
}

// indexDecodes counts decodes of a git index, for the tests that check an
// unchanged index is not decoded.
var indexDecodes atomic.Int64

// trackedIndex answers "does git track this path?" for one snapshot.
type trackedIndex struct {
	file  string
	fold  bool
	start int64 // an index modified at or after this is not kept (racy)
	old   *trackedCache

	statOnce sync.Once
	present  bool // the index file exists
	usable   bool // old describes the index as it is now
	oldRoots map[string]bool

	fullMu   sync.Mutex
	fullDone bool
	full     pathList // every index path, sorted, as matched
	fullKey  indexKey
	fullOK   bool // full is the index's: it decoded

	qmu     sync.Mutex
	queries map[trackedRoot]bool
}

func newTrackedIndex(file string, fold bool, start int64, old *trackedCache) *trackedIndex {
	return &trackedIndex{file: file, fold: fold, start: start, old: old, queries: map[trackedRoot]bool{}}
}

func keyOf(size, mtime, ctime int64, ino uint64, fold bool) indexKey {
	return indexKey{size: size, mtime: mtime, ctime: ctime, ino: ino, fold: fold}
}

// check stats the index, once, and decides whether the cached paths still
// describe it.
func (t *trackedIndex) check() {
	t.statOnce.Do(func() {
		if t.file == "" {
			return
		}
		f, err := regfile.Open(t.file)
		if err != nil {
			return // no index: nothing is tracked
		}
		st := f.Info()
		f.Close()
		t.present = true
		if t.old.valid && t.old.key == keyOf(st.Size, st.Mtime, st.Ctime, st.Ino, t.fold) {
			t.usable = true
			t.oldRoots = make(map[string]bool, len(t.old.roots))
			for _, r := range t.old.roots {
				t.oldRoots[r.path] = r.dir
			}
		}
	})
}

// covered reports whether the cached paths answer a question about path:
// it, or a directory above it, was a root.
func (t *trackedIndex) covered(path string, isDir bool) bool {
	if dir, ok := t.oldRoots[path]; ok && dir == isDir {
		return true
	}
	for p := path; ; {
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
		if dir, ok := t.oldRoots[p]; ok && dir {
			return true
		}
	}
}

// pathList is sorted, distinct paths: a []string (what the stat cache
// keeps), or a decoded index's, as one string and where each path ends
// in it (4 bytes a path where a string header is 16: at 924,400 files
// the decoded index is live through a first snapshot's walk).
type pathList struct {
	strs []string
	all  string
	ends []uint32 // used when strs is nil
}

func (p pathList) Len() int {
	if p.strs != nil {
		return len(p.strs)
	}
	return len(p.ends)
}

func (p pathList) At(i int) string {
	if p.strs != nil {
		return p.strs[i]
	}
	start := uint32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.all[start:p.ends[i]]
}

// search is the index of the first path not before s.
func (p pathList) search(s string) int {
	return sort.Search(p.Len(), func(i int) bool { return p.At(i) >= s })
}

// maxIndexPathBytes bounds the bytes of a decoded index's paths, which a
// pathList ends with uint32s. An index of version 4 compresses its
// paths' prefixes, so a file of some tens of megabytes can reach it. A
// variable for the test.
var maxIndexPathBytes uint64 = 1<<32 - 1

// loadFull decodes the index, once; walkers that need it wait for it,
// the others do not. A decode error is returned to the first caller only
// (it is reported once); the others get no paths.
func (t *trackedIndex) loadFull(matchPath func(string) string) (pathList, error) {
	t.fullMu.Lock()
	defer t.fullMu.Unlock()
	if t.fullDone {
		return t.full, nil
	}
	t.fullDone = true
	f, err := regfile.Open(t.file)
	if err != nil {
		return pathList{}, nil // gone since the stat: nothing is tracked
	}
	defer f.Close()
	info := f.Info()
	indexDecodes.Add(1)
	// The paths are kept in one buffer, sized once from the header
	// (grown as it went, it was five times its size in garbage); a
	// path in several stages (a conflict) is kept once.
	var all []byte
	var ends []uint32
	sorted, tooLarge := true, false
	begin := func(entries, pathBytes int) {
		all = make([]byte, 0, pathBytes)
		ends = make([]uint32, 0, entries)
	}
	if err := readGitIndex(f, info.Size, begin, func(name []byte, _ uint32) {
		if tooLarge {
			return
		}
		start := len(all)
		if t.fold {
			all = append(all, matchPath(string(name))...)
		} else {
			all = append(all, name...)
		}
		if uint64(len(all)) > maxIndexPathBytes {
			// ends are uint32: past that they would wrap.
			tooLarge, all = true, nil
			return
		}
		if n := len(ends); n > 0 {
			prev := uint32(0)
			if n > 1 {
				prev = ends[n-2]
			}
			switch c := bytes.Compare(all[prev:start], all[start:]); {
			case c == 0:
				all = all[:start]
				return
			case c > 0:
				sorted = false
			}
		}
		ends = append(ends, uint32(len(all)))
	}); err != nil {
		return pathList{}, err
	}
	if tooLarge {
		return pathList{}, fmt.Errorf("index: its paths pass %d bytes", maxIndexPathBytes)
	}
	if len(all) > 0 {
		t.full = pathList{all: unsafe.String(&all[0], len(all)), ends: ends}
	} else {
		t.full = pathList{strs: []string{}}
	}
	// git keeps its entries sorted by path; folded, they may not be.
	if !sorted {
		paths := make([]string, t.full.Len())
		for i := range paths {
			paths[i] = t.full.At(i)
		}
		slices.Sort(paths)
		t.full = pathList{strs: slices.Compact(paths)}
	}
	t.fullKey = keyOf(info.Size, info.Mtime, info.Ctime, info.Ino, t.fold)
	t.fullOK = true
	return t.full, nil
}

// isTracked reports whether git tracks path (as matched), or, for a
// directory, anything below it. root says the question is asked outside
// a directory entered for its tracked files; those are remembered. A
// decode error is returned once (loadFull).
func (t *trackedIndex) isTracked(path string, isDir, root bool, matchPath func(string) string) (bool, error) {
	if root {
		// A copy: the walk's paths share a buffer it reuses.
		t.qmu.Lock()
		t.queries[trackedRoot{strings.Clone(path), isDir}] = true
		t.qmu.Unlock()
	}
	t.check()
	if !t.present {
		return false, nil
	}
	var paths pathList
	if t.usable && t.covered(path, isDir) {
		paths = pathList{strs: t.old.paths}
	} else {
		var err error
		if paths, err = t.loadFull(matchPath); err != nil {
			return false, err
		}
	}
	return hasTracked(paths, path, isDir), nil
}

// hasTracked reports whether sorted paths hold path, or, for a directory,
// a path below it.
func hasTracked(paths pathList, path string, isDir bool) bool {
	if isDir {
		path += "/"
	}
	i := paths.search(path)
	if i == paths.Len() {
		return false
	}
	if isDir {
		return strings.HasPrefix(paths.At(i), path)
	}
	return paths.At(i) == path
}

// forCache is what the next snapshot's cache keeps: the roots asked about
// this time and the index's paths under them, when the index they come
// from is known and old enough not to be racy.
//
// It is called once the walk is done, nothing asks about a path after
// it, and it lets go of the decoded index, which the rest of a first
// snapshot would otherwise carry to its peak.
func (t *trackedIndex) forCache() *trackedCache {
	t.fullMu.Lock()
	defer t.fullMu.Unlock()
	defer func() { t.full = pathList{} }()
	var src pathList
	var key indexKey
	switch {
	case t.fullOK:
		src, key = t.full, t.fullKey
	case t.usable && !t.fullDone:
		// Every question was answered from the cache, so every root
		// asked lies at or below an old one: its paths are all there.
		src, key = pathList{strs: t.old.paths}, t.old.key
	default:
		return &trackedCache{}
	}
	if key.mtime >= t.start || len(t.queries) == 0 {
		// A rewrite within the same timestamp tick could keep this key.
		return &trackedCache{}
	}
	c := &trackedCache{valid: true, key: key, roots: make([]trackedRoot, 0, len(t.queries))}
	for r := range t.queries {
		c.roots = append(c.roots, r)
	}
	slices.SortFunc(c.roots, func(a, b trackedRoot) int { return strings.Compare(a.path, b.path) })
	// A path asked about as a file and as a directory (it changed type
	// during the walk) keeps one root; the other question decodes the
	// index next time.
	c.roots = slices.CompactFunc(c.roots, func(a, b trackedRoot) bool { return a.path == b.path })
	for _, r := range c.roots {
		if !r.dir {
			if hasTracked(src, r.path, false) {
				c.paths = append(c.paths, r.path)
			}
			continue
		}
		prefix := r.path + "/"
		for i := src.search(prefix); i < src.Len() && strings.HasPrefix(src.At(i), prefix); i++ {
			// A copy: a slice of the index's one string would keep all
			// of it.
			c.paths = append(c.paths, strings.Clone(src.At(i)))
		}
	}
	// Roots may nest (a secret inside a tracked ignored directory).
	slices.Sort(c.paths)
	c.paths = slices.Compact(c.paths)
	return c
}
