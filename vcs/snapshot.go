package vcs

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ctxgit/ctxgit/internal/gcpolicy"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/vcs/ignore"
)

// SnapshotOptions says what to snapshot and what to leave out.
type SnapshotOptions struct {
	// Root is the absolute workspace directory to snapshot.
	Root string
	// RepoTop is the absolute top of the git worktree containing Root, or ""
	// when Root is not in one. The .gitignore files from RepoTop down to
	// Root apply, as git would apply them.
	RepoTop string
	// InfoExclude and ExcludesFile are `$GIT_COMMON_DIR/info/exclude` and
	// git's core.excludesFile; "" or a missing file means none.
	InfoExclude  string
	ExcludesFile string
	// IndexFile is the worktree's index, read (never written) for the
	// paths git tracks: as with `git add -A`, a tracked file is kept even
	// when an ignore rule matches it. "" means none.
	IndexFile string
	// Fixed are gitignore patterns, relative to Root, that nothing can
	// re-include: ctxgit's machine-local files and its own outputs.
	Fixed []string
	// Excludes are the user's further patterns (snapshot.excludes), a
	// group of their own: their negations cannot re-include Fixed paths.
	Excludes []string
	// Secrets are gitignore patterns for files never stored, whatever the
	// ignore files say; exclusions are counted per pattern.
	Secrets []string
	// MaxFileSize skips larger files (reported); 0 means no limit.
	MaxFileSize int64
	// StatCache is the stat cache file ("" for none); StoreKey names the
	// object store so a cache made for another store is not trusted.
	StatCache string
	StoreKey  string
	// Workers hash and compress in parallel; 0 means GOMAXPROCS.
	Workers int
	// Start is when the snapshot began (for the racy-entry rule); zero
	// means now.
	Start time.Time
	// Progress, when not nil, is updated as the snapshot goes, for a
	// caller that shows it.
	Progress *Progress
	// FS says what the workspace's file system cannot do (core.ignoreCase,
	// core.fileMode, core.symlinks); Previous is the tree of the session's
	// previous checkpoint (zero for none), whose modes a file system
	// without an executable bit or symlinks keeps (SPEC §9.7).
	FS       FSFlags
	Previous Hash
	// Ctx, when not nil, stops the snapshot once it is done (Ctrl-C): the
	// walk and the hashing check it between directories and between
	// files, and Snapshot then returns its error having written no tree.
	// Blobs already stored stay, unreferenced, in the Store it was given.
	Ctx context.Context
}

// Progress counts a snapshot's work as it happens; safe to read from
// another goroutine.
type Progress struct {
	Scanned atomic.Int64 // directory entries looked at
	ToHash  atomic.Int64 // files the stat cache missed, to read and hash
	Hashed  atomic.Int64 // of those, read and hashed so far
	Bytes   atomic.Int64 // bytes read so far
}

// SnapshotResult describes a snapshot.
type SnapshotResult struct {
	Tree   Hash  // the root tree (written to the Store given to Snapshot)
	Files  int   // files, symlinks and gitlinks in the tree
	Bytes  int64 // bytes of file content in the tree
	Hashed int   // files read and hashed because the stat cache missed
	// Excluded counts files left out per secret pattern; ExcludedTracked
	// counts, of those, the ones git tracks (already in the user's
	// history, so worth telling apart from new secrets).
	Excluded        map[string]int
	ExcludedTracked map[string]int
	// TooLarge lists files over MaxFileSize, as "path (size)".
	TooLarge []string
	// Nested lists nested repositories, recorded as gitlinks to their
	// HEAD commit, or left out when they have no commit yet.
	Nested []string
	// Skipped lists entries that could not be read, as "path: reason".
	Skipped []string
	// CacheNote says why a damaged stat cache was discarded ("" if not).
	CacheNote string

	opts    SnapshotOptions
	old     *statCache
	update  *cacheUpdate // the new cache: old, and what differs from it
	dirty   bool         // the new cache differs from the old enough to save
	listed  int          // directories read from the disk, not the cache
	matched int          // entries the ignore rules were matched against
}

type snapNode struct {
	// A file's mode and id are st.mode and st.id; a directory's too (its
	// tree, or a gitlink's commit). One node per file that missed the
	// stat cache is the first snapshot's largest live cost (every file
	// misses), so a file's node holds only what a file needs, in 96
	// bytes: what only directories and symlinks need is behind dir, and
	// its path is rebuilt from its parents' names for the few uses (a
	// path string per file was another 48 bytes).
	name    string
	st      statEntry
	parent  *snapNode // the directory holding it; nil for the root
	dir     *snapDir  // directories and symlinks only
	isDir   bool
	modules bool // a .gitmodules to check as git fsck does
	pending bool // needs hashing: the stat cache missed
	dropped bool // could not be read, or an empty directory: not in the tree
}

// path is the node's workspace-relative path, built in one allocation.
func (n *snapNode) path() string {
	size := -1
	for p := n; p.parent != nil; p = p.parent {
		size += len(p.name) + 1
	}
	if size <= 0 {
		return ""
	}
	b := make([]byte, size)
	i := size
	for p := n; p.parent != nil; p = p.parent {
		i -= len(p.name)
		copy(b[i:], p.name)
		if i > 0 {
			i--
			b[i] = '/'
		}
	}
	return unsafe.String(&b[0], size)
}

// link is a symlink's target, nil for anything else.
func (n *snapNode) link() []byte {
	if n.isDir || n.dir == nil {
		return nil
	}
	return n.dir.link
}

// snapDir is what a directory's node holds beyond a file's; a symlink's
// node has one only for its target.
//
// A directory is complete once it and every directory below it have been
// walked. Its tree is then made at once, unless a file at or below it
// waits to be hashed ("deferred": made after hashing), and its entries are
// let go: the walk holds the directories still being walked and the ones
// with files to hash, not the whole tree (a no-change checkpoint of
// 184,880 files held 30 MB of nodes and listings at the end of its walk).
type snapDir struct {
	link    []byte      // a symlink's target
	old     int32       // its record in the old stat cache, -1 for none
	kids    []*snapNode // entries that missed the stat cache, and subdirectories
	listing *dirListing
	// hits are a directory's files that matched the stat cache: same
	// name, same stat data. They get no node of their own (at 100,000
	// files, nodes were 40% of a no-change checkpoint's memory); each is
	// its index in the old cache's file table.
	hits []uint32
	// waiting counts what keeps it from completing: its own walk and
	// the reading of its first files, each further task reading its
	// files (splitHash), and each subdirectory not complete yet.
	waiting atomic.Int32

	// leftOut names the entries rules that ask nothing of the index
	// left out (ctxgit's outputs, snapshot.excludes); askedIndex says
	// deciding an entry asked git's index; ignoreSum is its
	// .gitignore's sum. The new record keeps them, so an unchanged
	// directory is not decided again.
	leftOut    []string
	askedIndex bool
	ignoreSum  uint64
	decided    bool // its entries' fates were the old record's: no rule matched

	deferred bool    // complete, but a file at or below it was not stored (an error, or interrupted)
	done     bool    // its tree is made: st.id, dropped, same, rec
	same     bool    // its tree is the one its old record names
	recorded bool    // the new cache has a record of it
	rec      *newDir // that record, nil when identical to the old one

	alloc *dirAlloc // what it was allocated in, nil for a symlink's

	// opened is the directory, kept open while subdirectories are to
	// be opened relative to it, and its files read (hashRef): openRefs
	// of them.
	opened   openedDir
	openRefs atomic.Int32
	hashRef  bool
}

// dirAlloc is a directory's node, its snapDir and its listing in one
// allocation, taken from a pool and put back once its parent's tree is
// made (nothing refers to it then): the walk of a large tree allocates
// nodes for the directories being walked at once, not one per directory
// (16 MB in a no-change checkpoint of 184,880 files).
type dirAlloc struct {
	node    snapNode
	dir     snapDir
	listing dirListing
	rel     []byte // the directory's workspace-relative path (dirTask.rel)
}

var dirAllocs = sync.Pool{New: func() any { return new(dirAlloc) }}

// recycle puts a completed directory's node back in the pool, keeping the
// room its entries had.
func recycle(n *snapNode) {
	a := n.dir.alloc
	if a == nil {
		return
	}
	kids, hits, rel, left := a.dir.kids[:0], a.dir.hits[:0], a.rel[:0], a.dir.leftOut[:0]
	*a = dirAlloc{}
	a.dir.kids, a.dir.hits, a.rel, a.dir.leftOut = kids, hits, rel, left
	dirAllocs.Put(a)
}

// let go drops a directory's entries once its tree is made, recycling its
// subdirectories' nodes.
func (d *snapDir) letGo() {
	for i, k := range d.kids {
		if k.dir != nil && k.dir.alloc != nil {
			recycle(k)
		}
		d.kids[i] = nil
	}
	d.kids, d.hits, d.listing, d.done = d.kids[:0], d.hits[:0], nil, true
}

// dirListing is how a directory was listed, for the stat cache.
type dirListing struct {
	seen      dirStat
	listed    bool     // seen may be trusted next time (dirListed)
	fromCache bool     // entries came from the cache, not the disk
	entries   []dirent // what was read from the disk (nil from the cache)
}

type walker struct {
	opts      SnapshotOptions
	prefix    string // Root's path inside the repository, "" or "dir/"
	fixed     *ignore.Matcher
	excludes  *ignore.Matcher
	anySecret *ignore.Matcher
	secrets   []*ignore.Matcher
	res       *SnapshotResult
	store     Store
	nPending  atomic.Int64 // files the walk found the cache missed
	start     int64

	mu sync.Mutex // guards res's lists, update's overrides and err during the walk

	idx    *trackedIndex // what git tracks (tracked.go)
	types  fsTypes       // file system types by device
	listed atomic.Int64  // directories read from the disk
	files  atomic.Int64  // entries of the trees made: SnapshotResult.Files
	bytes  atomic.Int64  // SnapshotResult.Bytes
	dirty  atomic.Bool   // SnapshotResult.dirty
	hashed atomic.Int64  // SnapshotResult.Hashed
	// matched counts the entries the ignore rules were matched against
	// (the rest had their fate from the cache).
	matched atomic.Int64
	err     error // the first failure to store a tree

	fold      bool  // core.ignoreCase: match ignore rules and tracked paths folded
	prevStore Store // where Previous is read
	keptOnce  sync.Once
	kept      map[string]uint32 // see keptModes

	ctx context.Context // opts.Ctx, or one never done

	// rulesKey sums the ignore rules from outside the walk (ctxgit's,
	// snapshot.excludes, the secrets, core.excludesFile, info/exclude,
	// the .gitignore files above the root); rulesSame says the old
	// cache's entries were decided under the same.
	rulesHash hash.Hash
	rulesKey  Hash
	rulesSame bool
}

// patterns compiles ignore patterns, folded on a case-insensitive file
// system.
func (w *walker) patterns(src []byte, base, source string) []ignore.Pattern {
	ps := ignore.ParsePatterns(src, base, source)
	if w.fold {
		return ignore.FoldCase(ps)
	}
	return ps
}

// matchPath is a path as the ignore rules see it.
func (w *walker) matchPath(rel string) string {
	if w.fold {
		return ignore.FoldPath(rel)
	}
	return rel
}

// isTracked reports whether git tracks path, or, for a directory, anything
// below it (tracked.go). root says the question is not asked below a
// directory entered for its tracked files.
func (w *walker) isTracked(path string, isDir, root bool) bool {
	ok, err := w.idx.isTracked(w.matchPath(path), isDir, root, w.matchPath)
	if err != nil {
		w.mu.Lock()
		w.res.Skipped = append(w.res.Skipped, "index: unreadable ("+err.Error()+"); ignored files that git tracks were left out")
		w.mu.Unlock()
	}
	return ok
}

// Snapshot records the workspace into s as a tree: blobs for files, links
// for symlinks (never followed), gitlinks for nested repositories (never
// descended). It reads only files whose stat data changed since the stat
// cache was saved; call SaveCache after the snapshot's commit is stored.
func Snapshot(s Store, opts SnapshotOptions) (*SnapshotResult, error) {
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	res := &SnapshotResult{Excluded: map[string]int{}, ExcludedTracked: map[string]int{}, opts: opts}
	res.old, res.CacheNote = loadStatCache(opts.StatCache, opts.StoreKey, s.HasObject)
	res.update = &cacheUpdate{old: res.old, root: newKid{old: -1}, overrides: map[int32]*newDir{}}

	w := &walker{opts: opts, res: res, store: s, start: opts.Start.Add(-racyMargin).UnixNano(), fold: opts.FS.IgnoreCase, prevStore: s, ctx: opts.Ctx}
	w.idx = newTrackedIndex(opts.IndexFile, w.fold, w.start, res.old.tracked)
	if w.ctx == nil {
		w.ctx = context.Background()
	}
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	w.fixed = ignore.New(w.patterns([]byte(strings.Join(opts.Fixed, "\n")), "", "ctxgit"))
	w.excludes = ignore.New(w.patterns([]byte(strings.Join(opts.Excludes, "\n")), "", "snapshot.excludes"))
	// One matcher answers "is it a secret?" for every file; the rules one
	// by one only say which, for the few that are. Secrets match whatever
	// the case, on every file system: SERVER.PEM is a key too.
	w.anySecret = ignore.New(ignore.FoldCase(ignore.ParsePatterns([]byte(strings.Join(opts.Secrets, "\n")), "", "secrets")))
	for _, p := range opts.Secrets {
		w.secrets = append(w.secrets, ignore.New(ignore.FoldCase(ignore.ParsePatterns([]byte(p), "", "secret"))))
	}
	w.rulesHash = sha1.New()
	for _, group := range [][]string{opts.Fixed, opts.Excludes, opts.Secrets} {
		w.rulesSum("patterns", []byte(strings.Join(group, "\n")), true)
	}
	w.rulesSum("fold", nil, w.fold)
	m, err := w.baseMatcher()
	if err != nil {
		return nil, err
	}
	w.rulesSum("prefix", []byte(w.prefix), true)
	copy(w.rulesKey[:], w.rulesHash.Sum(nil))
	res.update.rules = w.rulesKey
	w.rulesSame = res.old.nDirs > 0 && res.old.rules == w.rulesKey
	if !w.rulesSame {
		w.dirty.Store(true)
	}
	root := w.dirNode("", nil, res.old.root())
	if err := w.walkRoot(opts.Root, m, root); err != nil {
		return nil, err
	}
	res.listed, res.matched = int(w.listed.Load()), int(w.matched.Load())
	res.update.tracked = w.idx.forCache()
	if !res.update.tracked.equal(res.old.tracked) {
		w.dirty.Store(true)
	}
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	// Every directory completed as the walk went, unless storing a tree
	// or a file failed (finishTree returns that).
	if err := w.finishTree(root); err != nil {
		return nil, err
	}
	res.Tree = root.st.id
	res.Files, res.Bytes, res.Hashed, res.dirty = int(w.files.Load()), w.bytes.Load(), int(w.hashed.Load()), w.dirty.Load()
	sort.Strings(res.Skipped)
	sort.Strings(res.TooLarge)
	sort.Strings(res.Nested)
	return res, nil
}

// rulesSum adds a source of ignore rules outside the walk to the key the
// cache keeps: what was read, and whether it was there.
func (w *walker) rulesSum(source string, data []byte, present bool) {
	var n [9]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(source)))
	w.rulesHash.Write(n[:8])
	w.rulesHash.Write([]byte(source))
	binary.BigEndian.PutUint64(n[:], uint64(len(data)))
	if present {
		n[8] = 1
	}
	w.rulesHash.Write(n[:])
	w.rulesHash.Write(data)
}

// ignoreSum is the sum of a directory's .gitignore (name and content),
// never 0; 0 stands for none.
func ignoreSum(name string, data []byte) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(data)
	return h.Sum64() | 1
}

// dirNode is a directory's node, waiting for its own walk; old is its
// record in the old cache.
func (w *walker) dirNode(name string, parent *snapNode, old int32) *snapNode {
	a := dirAllocs.Get().(*dirAlloc)
	a.node = snapNode{name: name, isDir: true, parent: parent, dir: &a.dir}
	a.dir.old, a.dir.alloc = old, a
	a.dir.waiting.Store(1)
	return &a.node
}

// maxIgnoreFile bounds what is read of one ignore file: git's own limit
// for .gitattributes, larger than any real one.
const maxIgnoreFile = 100 << 20

// maxLinkFile bounds a symlink checked out as a plain file: its content is
// a path.
const maxLinkFile = 64 << 10

// baseMatcher stacks core.excludesFile, info/exclude and the .gitignore
// files of Root's ancestors inside the repository, lowest precedence first.
func (w *walker) baseMatcher() (*ignore.Matcher, error) {
	// git follows a symlink for core.excludesFile and info/exclude (a
	// dotfile manager's link), never for a .gitignore in the tree.
	read := func(path, base, source string, follow bool) []ignore.Pattern {
		if path == "" {
			return nil
		}
		readFile := regfile.ReadFile
		if follow {
			readFile = regfile.ReadFileFollowing
		}
		data, err := readFile(path, maxIgnoreFile)
		w.rulesSum(source, data, err == nil)
		if err != nil {
			return nil
		}
		return w.patterns(data, base, source)
	}
	m := ignore.New(read(w.opts.ExcludesFile, "", w.opts.ExcludesFile, true), read(w.opts.InfoExclude, "", "info/exclude", true))
	if w.opts.RepoTop == "" {
		return m, nil
	}
	rel, err := filepath.Rel(w.opts.RepoTop, w.opts.Root)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("workspace %s is not inside its repository %s", w.opts.Root, w.opts.RepoTop)
	}
	if rel == "." {
		return m, nil
	}
	rel = filepath.ToSlash(rel)
	w.prefix = rel + "/"
	// Ancestors from the top down; Root's own .gitignore is read by walk.
	dir := ""
	for _, el := range strings.Split(rel, "/") {
		src := ".gitignore"
		if dir != "" {
			src = dir + "/.gitignore"
		}
		m = m.Push(read(filepath.Join(w.opts.RepoTop, filepath.FromSlash(src)), dir, src, false))
		if dir != "" {
			dir += "/"
		}
		dir += el
	}
	return m, nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// dirTask is one directory to list.
type dirTask struct {
	rel  string // workspace-relative; "" for the root
	m    *ignore.Matcher
	node *snapNode
	// onlyTracked is set below an ignored directory entered because git
	// tracks something in it: there only tracked paths are kept.
	onlyTracked bool
	// rulesSame says every rule that applies here is the one the old
	// cache's record was decided under: those from outside the walk,
	// and every .gitignore from the root down to the parent.
	rulesSame bool
	// hashFrom and hashTo, when hashTo > 0, make it a task of reading
	// node's entries [hashFrom, hashTo) that the cache missed (splitHash).
	hashFrom, hashTo int32
}

// absOf is the absolute path of a workspace-relative one, for what the
// walk does by path: rare (a .gitignore, a link's target, a nested
// repository), or on systems without the fast path.
func (w *walker) absOf(rel string) string {
	if rel == "" {
		return w.opts.Root
	}
	return filepath.Join(w.opts.Root, filepath.FromSlash(rel))
}

// walkRoot lists the tree with one worker per core taking directories from
// a shared stack (git's preload-index parallelises its lstats too); depth
// first, so a worker stays near the directories it just read.
func (w *walker) walkRoot(abs string, m *ignore.Matcher, root *snapNode) error {
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return fmt.Errorf("reading workspace %s: %w", abs, err)
	}
	var (
		mu     sync.Mutex
		cond   = sync.NewCond(&mu)
		stack  = []dirTask{{m: m, node: root, rulesSame: w.rulesSame}}
		active = 0
		wg     sync.WaitGroup
	)
	worker := func() {
		defer wg.Done()
		var sc walkScratch
		for {
			mu.Lock()
			for len(stack) == 0 && active > 0 {
				cond.Wait()
			}
			if len(stack) == 0 {
				mu.Unlock()
				cond.Broadcast()
				return
			}
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if t.hashTo > 0 {
				// Files of a directory another worker walked.
				mu.Unlock()
				w.hashKids(t.node, int(t.hashFrom), int(t.hashTo))
				w.release(t.node)
				continue
			}
			active++
			mu.Unlock()

			subdirs := w.walkDir(t, &sc)
			from, to := w.splitHash(t.node, &sc)

			mu.Lock()
			stack = append(stack, subdirs...)
			stack = append(stack, sc.hashes...)
			active--
			mu.Unlock()
			cond.Broadcast()
			clear(subdirs) // the stack has them: keep nothing alive here
			clear(sc.hashes)
			w.hashKids(t.node, from, to)
			// Its own walk no longer keeps it from completing.
			w.release(t.node)
		}
	}
	for range w.opts.Workers {
		wg.Add(1)
		go worker()
	}
	wg.Wait()
	if err := w.ctx.Err(); err != nil {
		// The tree is incomplete: nothing of it may be written.
		return err
	}
	if root.dropped {
		return fmt.Errorf("reading workspace %s: %s", abs, strings.Join(w.res.Skipped, "; "))
	}
	return nil
}

// walkDir lists one directory into its node and returns its subdirectories
// to list. A directory holding `.git` is a repository of its own: recorded
// as a gitlink, never descended (as git does).
func (w *walker) walkDir(t dirTask, sc *walkScratch) []dirTask {
	if w.ctx.Err() != nil {
		// Interrupted: the workers drain the stack without listing.
		w.parentOpened(t.node)
		return nil
	}
	n, c := t.node, w.res.old
	// The root may be reached through a symlink; below it, a directory
	// swapped for a symlink since its parent was listed is not followed.
	d, err := w.open(t)
	if err != nil {
		n.dropped = true
		w.skip(t.rel+"/", err)
		return nil
	}
	var subdirs []dirTask
	defer func() {
		pending := slices.ContainsFunc(n.dir.kids, func(k *snapNode) bool { return k.pending })
		if opensAt && (len(subdirs) > 0 || pending) {
			// Kept open for them and for its files to be read
			// relative to it (hashKids): the last done closes it.
			n.dir.opened, n.dir.hashRef = d, pending
			refs := len(subdirs)
			if pending {
				refs++
			}
			n.dir.openRefs.Store(int32(refs))
			return
		}
		d.close()
	}()
	// A directory whose stat data is the one its cached listing was
	// taken under has the same entries (git's untracked cache); its
	// files are still lstat'ed below.
	old := n.dir.old
	l := &n.dir.alloc.listing
	*l = dirListing{seen: d.st, listed: d.cacheable && d.st.mtime < w.start}
	if old >= 0 && d.cacheable {
		seen, listed := c.dirSeen(uint32(old))
		l.fromCache = listed && seen == d.st
	}
	if !l.fromCache {
		if l.entries, err = d.readDir(); err != nil {
			n.dropped = true
			w.skip(t.rel+"/", err)
			return nil
		}
		w.listed.Add(1)
	}
	n.dir.listing = l
	// each calls f with every entry of the listing, from the disk or
	// from the cache without building it.
	each := func(f func(dirent, int64)) {
		if l.fromCache {
			c.listing(uint32(old), f)
			return
		}
		for _, e := range l.entries {
			f(e, -1)
		}
	}
	var gitDir, ignoreFile string
	var count, nDirs, nFiles int
	each(func(de dirent, _ int64) {
		count++
		switch {
		case de.typ.IsDir():
			nDirs++
		case de.typ.IsRegular():
			nFiles++
		}
		// On a case-insensitive file system git's open of ".gitignore"
		// finds ".GitIgnore" too.
		switch {
		case de.name == ".git":
			gitDir = de.name
		case ignoreFile == "" && de.typ.IsRegular() && (de.name == ".gitignore" || w.fold && strings.EqualFold(de.name, ".gitignore")):
			ignoreFile = de.name
		}
	})
	if p := w.opts.Progress; p != nil {
		p.Scanned.Add(int64(count))
	}
	if t.rel != "" && gitDir != "" {
		n.isDir = false
		if nested, err := repoAt(w.absOf(t.rel)); err == nil {
			w.gitlink(n, t.rel, nested)
		} else {
			n.dropped = true
		}
		return nil
	}
	m := t.m
	dir := n.dir
	if ignoreFile != "" {
		if data, err := regfile.ReadFile(filepath.Join(w.absOf(t.rel), ignoreFile), maxIgnoreFile); err == nil {
			src := joinRel(t.rel, ignoreFile)
			// The rules keep their base: a copy, not the node's buffer.
			m = m.Push(w.patterns(data, strings.Clone(strings.TrimSuffix(w.prefix+t.rel, "/")), src))
			dir.ignoreSum = ignoreSum(ignoreFile, data)
		}
	}
	// The rules here are the ones the old record's entries were decided
	// under when those above were and this directory's .gitignore is the
	// same. Then, with the same listing, each entry's fate is the old
	// one: no rule is matched again (git's untracked cache keeps the same
	// per directory). Unless deciding asked git's index, which may have
	// changed: such a directory is decided again.
	rulesSame := false
	if t.rulesSame && old >= 0 {
		rules, sum, _ := c.dirRules(uint32(old))
		rulesSame = rules && sum == dir.ignoreSum
	}
	decided := false
	if rulesSame && l.fromCache && !t.onlyTracked {
		_, _, asked := c.dirRules(uint32(old))
		decided = !asked
	}
	dir.decided = decided
	// In a directory whose files all match the cache (most, in a
	// checkpoint that changed little) only subdirectories get nodes.
	dir.kids = slices.Grow(dir.kids, nDirs)
	dir.hits = slices.Grow(dir.hits, nFiles)
	subdirs = sc.subdirs[:0]
	// Each entry's path, the repository's prefix before it, is built in
	// the worker's buffer and matched as a string sharing it: nothing
	// below keeps it but through a copy (a path string per entry was a
	// fifth of a no-change checkpoint's garbage).
	pathBuf := append(append(sc.path[:0], w.prefix...), t.rel...)
	if t.rel != "" {
		pathBuf = append(pathBuf, '/')
	}
	base := len(pathBuf)
	each(func(de dirent, file int64) {
		name := de.name
		if name == ".git" {
			return
		}
		pathBuf = append(pathBuf[:base], name...)
		full := unsafe.String(unsafe.SliceData(pathBuf), len(pathBuf))
		r := full[len(w.prefix):]
		typ := de.typ
		if gitRefuses(name, typ&fs.ModeSymlink != 0) {
			why := "a name git refuses in a tree"
			if typ&fs.ModeSymlink != 0 && isGitmodules(name) {
				why = "a symlink named .gitmodules, which git fsck rejects; left out"
			}
			w.skip(r, errors.New(why))
			return
		}
		isDir := typ.IsDir()
		kidOnlyTracked := t.onlyTracked
		if decided {
			if de.left {
				return
			}
		} else {
			w.matched.Add(1)
			mr := w.matchPath(r)
			switch {
			case w.fixed.Match(mr, isDir):
				dir.leftOut = append(dir.leftOut, name)
				return
			case w.secretRule(r, isDir):
				// Counted under its rule, and whether git tracks it.
				dir.askedIndex = true
				return
			case w.excludes.Match(mr, isDir):
				dir.leftOut = append(dir.leftOut, name)
				return
			}
			if t.onlyTracked || m.Match(w.matchPath(full), isDir) {
				dir.askedIndex = true
				if !w.isTracked(full, isDir, !t.onlyTracked) {
					return
				}
				kidOnlyTracked = true
			}
		}
		switch {
		case isDir:
			kid := w.dirNode(name, n, c.child(old, name))
			dir.kids = append(dir.kids, kid)
			// Its path lives in its node, recycled only after every
			// walk below it is done: nothing keeps it longer but
			// through a copy.
			a := kid.dir.alloc
			a.rel = append(a.rel[:0], r...)
			subdirs = append(subdirs, dirTask{rel: unsafe.String(unsafe.SliceData(a.rel), len(a.rel)), m: m, node: kid, onlyTracked: kidOnlyTracked, rulesSame: rulesSame})
		case typ&fs.ModeSymlink != 0:
			target, err := os.Readlink(w.absOf(r))
			if err != nil {
				w.skip(r, err)
				return
			}
			dir.kids = append(dir.kids, &snapNode{name: name, st: statEntry{mode: ModeSymlink}, parent: n, dir: &snapDir{link: []byte(target)}, pending: true})
		case typ.IsRegular():
			if k, hit := w.fileNode(d, n, r, name, old, file); hit >= 0 {
				dir.hits = append(dir.hits, uint32(hit))
			} else if k != nil {
				if isGitmodules(name) && k.pending {
					k.modules = true
				}
				dir.kids = append(dir.kids, k)
			}
		}
		// Sockets, pipes and devices have no place in a tree.
	})
	sc.path, sc.subdirs = pathBuf, subdirs
	if added := int64(len(dir.kids) - len(subdirs)); added > 0 {
		if p := w.opts.Progress; p != nil {
			p.ToHash.Add(added)
		}
		// A file the cache missed leaves a new cache record and a tree
		// entry held to the end: what a first snapshot holds grows with
		// them, and the collector is told before it gets there.
		total := w.nPending.Add(added)
		if total/expectEvery != (total-added)/expectEvery {
			gcpolicy.Expect(c.size + (total+expectEvery)*heldPerPending)
		}
	}
	// Before any is walked: each keeps this directory from completing.
	dir.waiting.Add(int32(len(subdirs)))
	return subdirs
}

// open opens the directory of a task: the root by its path, any other
// relative to its parent, which is let go of once it is.
func (w *walker) open(t dirTask) (openedDir, error) {
	n := t.node
	if n.parent == nil {
		return openDir(-1, "", func() string { return w.opts.Root }, true, &w.types)
	}
	defer w.parentOpened(n)
	return openDir(n.parent.dir.opened.fd, n.name, func() string { return w.absOf(t.rel) }, false, &w.types)
}

// parentOpened says n no longer needs its parent open: the parent is
// closed once none of its subdirectories, nor the reading of its files,
// does.
func (w *walker) parentOpened(n *snapNode) {
	if n.parent != nil {
		closeRef(n.parent)
	}
}

func closeRef(n *snapNode) {
	if opensAt && n.dir.openRefs.Add(-1) == 0 {
		n.dir.opened.close()
		n.dir.opened = openedDir{}
	}
}

// openFile opens a file the cache missed: relative to its directory
// where that is kept open for it, else by its path.
func (w *walker) openFile(n *snapNode) (*regfile.File, error) {
	if p := n.parent; opensAt && p != nil && p.dir.hashRef {
		return openFileAt(p.dir.opened.fd, n.name)
	}
	return regfile.Open(w.absOf(n.path()))
}

// heldPerPending is about what a file the cache missed holds until the
// snapshot ends: its new cache record and its entry in a tree staged in
// memory. expectEvery is how often the collector's limit is raised for
// them.
const (
	heldPerPending = 128
	expectEvery    = 16384
)

// walkScratch is what a walking goroutine reuses from one directory to
// the next.
type walkScratch struct {
	path    []byte
	subdirs []dirTask
	hashes  []dirTask
}

func (w *walker) secretRule(rel string, isDir bool) bool {
	if len(w.secrets) == 0 {
		return false
	}
	// Folding costs an allocation only for a path with an upper-case
	// letter.
	folded := ignore.FoldPath(rel)
	if !w.anySecret.Match(folded, isDir) {
		return false
	}
	rule := strings.Join(w.opts.Secrets, ", ")
	for i, sm := range w.secrets {
		if sm.Match(folded, isDir) {
			rule = w.opts.Secrets[i]
			break
		}
	}
	// The index is read only now, when a secret matched.
	tracked := w.isTracked(w.prefix+rel, isDir, true)
	w.mu.Lock()
	w.res.Excluded[rule]++
	if tracked {
		w.res.ExcludedTracked[rule]++
	}
	w.mu.Unlock()
	return true
}

// fileNode lstats a file in its directory (walkfs.go) and looks it up in
// the directory's record dir in the old stat cache: a file that matches
// it is returned as its index in the cache's file table, any other as a
// node (nil when left out). j is that index when the listing came from
// the cache, -1 to look the name up.
func (w *walker) fileNode(d openedDir, parent *snapNode, rel, name string, dir int32, j int64) (*snapNode, int64) {
	st, err := lstatAt(d, name)
	if err != nil {
		w.skip(rel, &fs.PathError{Op: "lstat", Path: rel, Err: err})
		return nil, -1
	}
	if w.opts.MaxFileSize > 0 && st.size > w.opts.MaxFileSize {
		w.mu.Lock()
		w.res.TooLarge = append(w.res.TooLarge, fmt.Sprintf("%s (%d bytes)", rel, st.size))
		w.mu.Unlock()
		return nil, -1
	}
	e := statEntry{size: st.size, mtime: st.mtime, ctime: st.ctime, ino: st.ino, mode: w.fileMode(rel, st.exec)}
	if e.mode == ModeSymlink && isGitmodules(name) {
		w.skip(rel, errors.New("a symlink named .gitmodules, which git fsck rejects; left out"))
		return nil, -1
	}
	if e.mode == ModeSymlink {
		// A symlink checked out as a plain file (core.symlinks=false):
		// its content is the target. Links are never cached.
		target, err := regfile.ReadFile(w.absOf(rel), maxLinkFile)
		if err != nil {
			w.skip(rel, err)
			return nil, -1
		}
		return &snapNode{name: name, st: statEntry{mode: ModeSymlink}, parent: parent, dir: &snapDir{link: target}, pending: true}, -1
	}
	if j < 0 {
		j = w.res.old.findFile(dir, name)
	}
	if j >= 0 {
		if old := w.res.old.fileEntry(uint32(j)); old.size == e.size && old.mtime == e.mtime &&
			old.ctime == e.ctime && old.ino == e.ino && old.mode == e.mode {
			return nil, j
		}
	}
	return &snapNode{name: name, parent: parent, st: e, pending: true}, -1
}

// gitlink turns a directory node into a gitlink to the nested repository's
// HEAD commit; one with no commit yet is left out and reported.
func (w *walker) gitlink(n *snapNode, rel string, nested *RepoInfo) {
	head, err := ReadHEAD(nested.GitDir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil || head.IsZero() {
		n.dropped = true
		w.res.Nested = append(w.res.Nested, rel+" (no commit yet: not recorded)")
		return
	}
	n.st.mode, n.st.id = ModeGitlink, head
	w.res.Nested = append(w.res.Nested, rel+" at "+head.Short())
}

func (w *walker) skip(rel string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return // removed while we walked: it is simply not in this snapshot
	}
	w.mu.Lock()
	w.res.Skipped = append(w.res.Skipped, rel+": "+errText(err))
	w.mu.Unlock()
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// hashKids reads, hashes and stores a directory's files that the cache
// missed, and its links, by the worker that walked it, once its
// subdirectories are on the stack for the others: the directory can then
// complete as soon as they do, so a first snapshot holds the directories
// being walked, not a node per file until the walk ends (80 MB of nodes
// and listings at 184,880 files when the hashing came after the walk).
func (w *walker) hashKids(n *snapNode, from, to int) {
	if n.dir.hashRef {
		defer closeRef(n)
	}
	progress := w.opts.Progress
	for _, k := range n.dir.kids[from:to] {
		if !k.pending {
			continue
		}
		if w.ctx.Err() != nil {
			return // it stays pending: the snapshot is abandoned
		}
		var id Hash
		var err error
		link := k.link()
		size := int64(len(link))
		if link != nil {
			id, err = w.store.WriteObject(BlobObject, link)
		} else {
			var skipErr error
			id, size, skipErr, err = w.storeFile(w.store, k)
			if skipErr != nil {
				k.dropped = true
				w.skip(k.path(), skipErr)
			}
		}
		if err != nil {
			w.fail(fmt.Errorf("storing %s: %w", k.path(), err))
			return
		}
		k.pending = false
		if k.dropped {
			continue
		}
		k.st.id = id
		w.hashed.Add(1)
		if progress != nil {
			progress.Hashed.Add(1)
			progress.Bytes.Add(size)
		}
	}
}

// hashChunk is about how many files one worker reads of a directory
// before the rest are offered to the others: a directory of thousands of
// files (oci-go-sdk has some) is read on every core, not by the one
// worker that walked it.
const hashChunk = 64

// splitHash divides the entries of a directory with files to read into
// chunks of about hashChunk files: it returns the first, for the worker
// that walked it, and puts the others in sc.hashes, as tasks for any
// worker. Each keeps the directory from completing, and open, until it
// is done.
func (w *walker) splitHash(n *snapNode, sc *walkScratch) (from, to int) {
	sc.hashes = sc.hashes[:0]
	kids := n.dir.kids
	if !n.dir.hashRef && !slices.ContainsFunc(kids, func(k *snapNode) bool { return k.pending }) {
		return 0, 0
	}
	start, files := 0, 0
	for i, k := range kids {
		if !k.pending {
			continue
		}
		if files++; files <= hashChunk {
			continue
		}
		// kids[start:i] holds hashChunk files: a chunk of its own.
		if start == 0 {
			to = i
		} else {
			sc.hashes = append(sc.hashes, dirTask{node: n, hashFrom: int32(start), hashTo: int32(i)})
		}
		start, files = i, 1
	}
	if start == 0 {
		return 0, len(kids)
	}
	sc.hashes = append(sc.hashes, dirTask{node: n, hashFrom: int32(start), hashTo: int32(len(kids))})
	extra := int32(len(sc.hashes))
	n.dir.waiting.Add(extra)
	if n.dir.hashRef {
		n.dir.openRefs.Add(extra)
	}
	return 0, to
}

// fail records the first failure to store an object; the snapshot
// returns it.
func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// streamAbove is the size from which a file is hashed and compressed as
// it is read rather than read whole: its memory is then a fixed chunk,
// whatever the file's size (snapshot.max_file_size: 0 admits any).
const streamAbove = 4 << 20

// storeFile reads a regular file and stores it as a blob. It opens the
// file without following a symlink and without blocking (a FIFO swapped
// in since the walk is refused), and reads no more than the size fstat
// reports on the opened file, whatever the file yields beyond it. The
// node's stat data becomes that fstat's, so the stat cache describes the
// bytes stored. A file that turned into something else, or grew past
// max_file_size, is dropped (n.dropped, and reported). skip is a reason to
// leave the file out; err is the store failing, which fails the snapshot.
func (w *walker) storeFile(s Store, n *snapNode) (id Hash, size int64, skip, err error) {
	// A file shrinking while a stream reads it is read again; a file
	// rewritten on every read is given up on.
	for range 3 {
		f, oerr := w.openFile(n)
		if oerr != nil {
			return ZeroHash, 0, oerr, nil
		}
		info := f.Info()
		size = info.Size
		if w.opts.MaxFileSize > 0 && size > w.opts.MaxFileSize {
			f.Close()
			n.dropped = true
			w.mu.Lock()
			w.res.TooLarge = append(w.res.TooLarge, fmt.Sprintf("%s (%d bytes)", n.path(), size))
			w.mu.Unlock()
			return ZeroHash, 0, nil, nil
		}
		n.st.size, n.st.mtime, n.st.ctime, n.st.ino = info.Size, info.Mtime, info.Ctime, info.Ino
		if n.modules && size > streamAbove {
			f.Close()
			return ZeroHash, 0, fmt.Errorf("a .gitmodules of %d bytes, too large to check as git fsck does; left out", size), nil
		}
		if bs, ok := s.(BlobWriter); ok && size > streamAbove {
			r := &readErrors{r: f}
			id, err = bs.WriteBlobFrom(r, size)
			f.Close()
			switch {
			case errors.Is(err, ErrChangedWhileRead):
				skip = err
				continue
			case r.err != nil:
				return ZeroHash, 0, r.err, nil
			case err != nil:
				return ZeroHash, 0, nil, err
			}
			return id, size, nil, nil
		}
		bp := readBufs.Get().(*[]byte)
		if int64(cap(*bp)) < size {
			*bp = make([]byte, size)
		}
		data := (*bp)[:size]
		got, rerr := io.ReadFull(f, data)
		f.Close()
		// Every Store copies or compresses what WriteObject is given
		// (store.go), so the buffer is free again once this returns.
		defer readBufs.Put(bp)
		if rerr != nil && rerr != io.ErrUnexpectedEOF && rerr != io.EOF {
			return ZeroHash, 0, rerr, nil
		}
		if int64(got) < size {
			// It shrank while read: store what it held, and never
			// cache this stat for it.
			data, size = data[:got], int64(got)
			n.st.size, n.st.mtime = size, w.start
		}
		if n.modules {
			// A tree holding a .gitmodules that git fsck --strict
			// rejects is refused by a remote with receive.fsckObjects.
			if err := CheckGitmodules(data); err != nil {
				return ZeroHash, 0, fmt.Errorf("git fsck would reject this .gitmodules (%v); left out", err), nil
			}
		}
		id, err = s.WriteObject(BlobObject, data)
		if err != nil {
			return ZeroHash, 0, nil, err
		}
		return id, size, nil, nil
	}
	return ZeroHash, 0, skip, nil
}

// readBufs hold files read whole (below streamAbove) for hashing: a first
// snapshot of 100,000 files read 300 MB into buffers used once each.
var readBufs = sync.Pool{New: func() any { return new([]byte) }}

// readErrors remembers a read error, so a failed stream can tell the
// file's fault (left out) from the store's (fatal).
type readErrors struct {
	r   io.Reader
	err error
}

func (r *readErrors) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// release takes one of what keeps n from completing away (its own walk,
// or a subdirectory now complete), and completes it, and the directories
// above it in turn, when nothing is left.
func (w *walker) release(n *snapNode) {
	for n != nil && n.dir.waiting.Add(-1) == 0 {
		w.complete(n)
		n = n.parent
	}
}

// complete makes a directory's tree as soon as everything below it has
// been walked and read, unless a file at or below it is still not
// stored (storing failed, or the snapshot was interrupted): then it is
// deferred, and finishTree reports why.
func (w *walker) complete(n *snapNode) {
	d := n.dir
	if !n.isDir || n.dropped {
		// A gitlink, or a directory that could not be read.
		d.letGo()
		return
	}
	for _, k := range d.kids {
		if k.pending || k.isDir && k.dir.deferred {
			d.deferred = true
			return
		}
	}
	if w.ctx.Err() != nil {
		d.deferred = true // the snapshot is abandoned: make nothing more
		return
	}
	if err := w.tree(n); err != nil {
		w.fail(err)
		d.deferred = true
	}
}

// finishTree makes the trees of deferred directories, bottom-up, and
// reports a failure to store a file or a tree.
func (w *walker) finishTree(n *snapNode) error {
	if w.err != nil {
		return w.err
	}
	if n.dir.done {
		return nil
	}
	for _, k := range n.dir.kids {
		if k.isDir && !k.dir.done {
			if err := w.finishTree(k); err != nil {
				return err
			}
		}
	}
	return w.tree(n)
}

// tree makes a directory's tree, every subdirectory's being made,
// writing it only when the store may lack it, and its record in the new
// stat cache. As git's cache-tree does, a directory whose files all
// matched the stat cache, whose subtrees are unchanged and whose entry
// count is the same keeps its previous id without being encoded again.
// An empty directory has no tree (git records none) and is dropped from
// its parent's, but keeps its record: its listing is not read again.
// Its entries are let go once the tree is made.
func (w *walker) tree(n *snapNode) error {
	d, c := n.dir, w.res.old
	defer d.letGo()
	hasOld := d.old >= 0
	var oldTree dirEntry
	var oldHasTree bool
	var oldFirst, oldN uint32
	if hasOld {
		oldTree, oldHasTree = c.dirTree(uint32(d.old))
		oldFirst, oldN = c.dirFiles(uint32(d.old))
	}
	same := true
	nEntries, nFiles := len(d.hits), len(d.hits)
	files, size := int64(len(d.hits)), int64(0)
	for _, j := range d.hits {
		size += c.fileEntry(j).size
	}
	for _, k := range d.kids {
		switch {
		case k.isDir:
			if !k.dropped {
				nEntries++
			}
			// An empty subdirectory that was empty before changes
			// nothing; one that could not be read, or that emptied, does.
			same = same && k.dir.same
		case k.dropped:
		default:
			nEntries++
			same = false // a file with a node missed the cache
			files++
			if k.st.mode != ModeGitlink {
				size += k.st.size
				nFiles++
			}
		}
	}
	if nEntries == 0 && n.parent != nil {
		n.dropped = true
		d.same = hasOld && !oldHasTree
		w.record(n, dirEntry{}, false, nil, hasOld && oldN == 0)
		return nil
	}
	w.files.Add(files)
	w.bytes.Add(size)
	// Every file a hit means each is cached now as it was (a hit is
	// never a link, and its mtime is older than any later start).
	if same && hasOld && oldHasTree && oldN == uint32(nFiles) && oldTree.entries == uint32(nEntries) && oldTree.stored {
		n.st.id, d.same = oldTree.id, true
		w.record(n, oldTree, true, nil, true)
		return nil
	}
	entries := make([]TreeEntry, 0, nEntries)
	newFiles := make([]cachedFile, 0, nFiles)
	for _, j := range d.hits {
		// A hit is cached as it was: its mtime is older than any later
		// start.
		f := cachedFile{c.fileName(j), c.fileEntry(j)}
		entries = append(entries, TreeEntry{Name: f.name, Mode: f.e.mode, ID: f.e.id})
		newFiles = append(newFiles, f)
	}
	for _, k := range d.kids {
		switch {
		case k.isDir:
			if !k.dropped {
				entries = append(entries, TreeEntry{Name: k.name, Mode: ModeDir, ID: k.st.id})
			}
		case k.dropped:
		default:
			entries = append(entries, TreeEntry{Name: k.name, Mode: k.st.mode, ID: k.st.id})
			// A file changed within the racy margin is not cached: a
			// further change could share its mtime. (ctime is compared
			// for equality on use, which catches a content change whose
			// mtime was set back.) Symlinks and gitlinks are never
			// cached, nor a name no record can hold.
			switch {
			case k.st.mode == ModeGitlink || k.st.mode == ModeSymlink || len(k.name) > maxCachedName:
			case k.st.mtime < w.start:
				newFiles = append(newFiles, cachedFile{k.name, k.st})
			default:
				// Too recent to cache. Its old entry, if any, is kept: it
				// can never match the file's new stat (the ctime moved),
				// and keeping it spares rewriting the cache until the
				// file is old enough to cache anew.
				if j := c.findFile(d.old, k.name); j >= 0 {
					newFiles = append(newFiles, cachedFile{k.name, c.fileEntry(uint32(j))})
				}
			}
		}
	}
	sortFiles(newFiles)
	filesSame := hasOld && sameFiles(c, oldFirst, oldN, newFiles)
	if filesSame {
		newFiles = nil // the old records stand
	}
	var tree dirEntry
	defer func() { n.st.id = tree.id }()
	if same && hasOld && oldHasTree && oldTree.entries == uint32(len(entries)) {
		tree = oldTree
		if oldTree.stored {
			d.same = true
			w.record(n, tree, true, newFiles, filesSame)
			return nil
		}
		// Unchanged but never written (a tree ctxgit extends): write it.
	}
	SortTree(entries)
	data := EncodeTree(entries)
	h := HashObject(TreeObject, data)
	// A new tree id alone is no reason to rewrite the cache: the saved
	// record names an older tree that still exists, and only costs this
	// directory a re-encode next time.
	if oldHasTree && oldTree.id == h && oldTree.stored {
		tree, d.same = oldTree, true
		w.record(n, tree, true, newFiles, filesSame)
		return nil
	}
	tree = dirEntry{id: h, entries: uint32(len(entries))}
	d.same = oldHasTree && oldTree.id == h
	w.record(n, tree, true, newFiles, filesSame)
	return writeOwned(w.store, TreeObject, h, data)
}

// sameFiles reports whether a directory's new file records are its old
// ones: the same names with the same stat data and ids.
func sameFiles(c *statCache, first, n uint32, files []cachedFile) bool {
	if uint32(len(files)) != n {
		return false
	}
	for i, f := range files {
		j := first + uint32(i)
		if c.fileName(j) != f.name || c.fileEntry(j) != f.e {
			return false
		}
	}
	return true
}

// record makes n's record in the new stat cache from its tree, its files
// (nil with filesSame: the old record's) and how it was listed, and
// says whether the cache is worth saving for it. A directory whose
// record is its old one, subdirectories included, costs nothing.
//
// A listing read again that holds what the cached one held does not make
// the cache worth rewriting (a directory ctxgit itself writes to,
// .ctxgit, changes its times at every checkpoint), nor does a new tree id
// alone: the record is kept, and only read again next time.
func (w *walker) record(n *snapNode, tree dirEntry, hasTree bool, files []cachedFile, filesSame bool) {
	d, c := n.dir, w.res.old
	d.recorded = true
	hasOld := d.old >= 0
	l := d.listing
	seen, listed := l.seen, l.listed
	dirty := !filesSame
	var others []dirent
	// The same listing, the same files, the same decisions: the same
	// others.
	othersSame := l.fromCache && filesSame && d.decided
	if !othersSame {
		entries := l.entries
		if l.fromCache {
			c.listing(uint32(d.old), func(e dirent, _ int64) { entries = append(entries, e) })
		}
		if !d.decided {
			// Left out by a rule that asks nothing of the index: what
			// the walk decided now, not what the cache said.
			slices.Sort(d.leftOut)
			for i := range entries {
				_, entries[i].left = slices.BinarySearch(d.leftOut, entries[i].name)
			}
		}
		isFile := func(name string) bool { return c.findFile(d.old, name) >= 0 }
		if !filesSame {
			isFile = func(name string) bool {
				i := sort.Search(len(files), func(i int) bool { return files[i].name >= name })
				return i < len(files) && files[i].name == name
			}
		}
		// The others are what the listing holds besides the files
		// cached now: a file newly cached (tracked, no longer ignored,
		// no longer racy) leaves them, one no longer cached joins them.
		others = othersOf(entries, isFile)
		if slices.ContainsFunc(others, func(o dirent) bool { return len(o.name) > maxCachedName }) {
			// No record holds such a name: the listing kept would be
			// incomplete, so it is never trusted.
			others = slices.DeleteFunc(others, func(o dirent) bool { return len(o.name) > maxCachedName })
			listed = false
		}
		othersSame = hasOld && sameOthers(c, uint32(d.old), others)
		if othersSame {
			others = nil
		}
		if !l.fromCache && !othersSame {
			dirty = true
		}
	}
	kidsSame := w.sameKids(n)
	if hasOld {
		oldSeen, oldListed := c.dirSeen(uint32(d.old))
		if !l.fromCache && listed && !oldListed {
			dirty = true
		}
		// Decided under other rules, or asking the index where it did
		// not: the next snapshot must know.
		rules, sum, asked := c.dirRules(uint32(d.old))
		sameRules := rules && sum == d.ignoreSum && asked == d.askedIndex
		if !sameRules {
			dirty = true
		}
		oldTree, oldHasTree := c.dirTree(uint32(d.old))
		if seen == oldSeen && listed == oldListed && oldTree == tree && oldHasTree == hasTree && filesSame && othersSame && kidsSame && sameRules {
			// Identical, subdirectories included: no record of its own.
			w.finishRecord(n, nil, dirty)
			return
		}
	}
	nd := &newDir{old: d.old, tree: tree, hasTree: hasTree, seen: seen, listed: listed, ignoreSum: d.ignoreSum, askedIndex: d.askedIndex,
		files: files, others: others, sameFiles: filesSame, sameOthers: othersSame, sameKids: kidsSame}
	if !kidsSame {
		dirty = true
		for _, k := range d.kids {
			if k.isDir && k.dir.recorded {
				nd.kids = append(nd.kids, newKid{name: k.name, old: k.dir.old, nd: k.dir.rec})
			}
		}
		slices.SortFunc(nd.kids, func(a, b newKid) int { return strings.Compare(a.name, b.name) })
	}
	if !l.fromCache {
		nd.ownNames()
	}
	w.finishRecord(n, nd, dirty)
}

// ownNames copies the names a new record holds into one string of its
// own: names read from the disk are slices of a whole getdents buffer
// (headers, padding and every other name in it), which a first snapshot
// would otherwise keep alive for each directory until the cache is
// saved (12 MB at 184,880 files).
func (nd *newDir) ownNames() {
	size := 0
	for _, f := range nd.files {
		size += len(f.name)
	}
	for _, o := range nd.others {
		size += len(o.name)
	}
	for _, k := range nd.kids {
		size += len(k.name)
	}
	if size == 0 {
		return
	}
	buf := make([]byte, 0, size)
	s := unsafe.String(unsafe.SliceData(buf[:size]), size)
	own := func(name string) string {
		start := len(buf)
		buf = append(buf, name...)
		return s[start:len(buf)]
	}
	for i := range nd.files {
		nd.files[i].name = own(nd.files[i].name)
	}
	for i := range nd.others {
		nd.others[i].name = own(nd.others[i].name)
	}
	for i := range nd.kids {
		nd.kids[i].name = own(nd.kids[i].name)
	}
}

// finishRecord keeps n's new record, nd (nil: identical to the old).
func (w *walker) finishRecord(n *snapNode, nd *newDir, dirty bool) {
	n.dir.rec = nd
	if dirty {
		w.dirty.Store(true)
	}
	if n.parent == nil {
		w.res.update.root = newKid{old: n.dir.old, nd: nd}
	}
	if nd != nil && nd.old >= 0 {
		w.mu.Lock()
		w.res.update.overrides[nd.old] = nd
		w.mu.Unlock()
	}
}

// sameKids reports whether the recorded subdirectories of n are those of
// its old record.
func (w *walker) sameKids(n *snapNode) bool {
	c, old := w.res.old, n.dir.old
	if old < 0 {
		return false
	}
	recorded := 0
	for _, k := range n.dir.kids {
		if k.isDir && k.dir.recorded {
			if k.dir.old < 0 {
				return false
			}
			recorded++
		}
	}
	first, no := c.dirOthers(uint32(old))
	for k := first; k < first+no; k++ {
		if c.otherChild(k) != noChild {
			recorded--
		}
	}
	return recorded == 0
}

// sameOthers reports whether others are the old record's.
func sameOthers(c *statCache, d uint32, others []dirent) bool {
	first, n := c.dirOthers(d)
	if uint32(len(others)) != n {
		return false
	}
	for i, o := range others {
		if c.other(first+uint32(i)) != (dirent{name: o.name, typ: direntType(direntCode(o.typ)), left: o.left}) {
			return false
		}
	}
	return true
}

// othersOf is what a listing holds besides the cached files, sorted by
// name.
func othersOf(entries []dirent, isFile func(string) bool) []dirent {
	var out []dirent
	for _, e := range entries {
		if e.typ.IsRegular() && isFile(e.name) {
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	return out
}

// SaveCache stores the stat cache once the snapshot is reachable from
// anchor, a commit in base. A directory's tree is marked stored only when
// base really holds it, so a tree that was staged but never written (a
// snapshot root later extended) is never trusted.
func (r *SnapshotResult) SaveCache(base Store, anchor Hash) error {
	if r.opts.StatCache == "" {
		return nil
	}
	if !r.dirty && r.CacheNote == "" && !r.old.anchor.IsZero() {
		// Nothing changed: the saved cache, anchored at an earlier
		// checkpoint of the same content, is still right.
		return nil
	}
	r.update.anchor = anchor
	return r.update.save(r.opts.StatCache, func(h Hash) bool {
		ok, err := base.HasObject(h)
		return err == nil && ok
	})
}

// hfsIgnorable are code points HFS+ ignores in names, so ".g\u200cit" is
// ".git" there (git's is_hfs_dotgit).
var hfsIgnorable = []rune{0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
	0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff}

// gitRefuses reports whether git would refuse a tree entry of this name
// (`git add` says "invalid path", `git fsck --strict` hasDotgit or
// gitmodulesSymlink): a ".git" in any case or in its NTFS and HFS+
// spellings, and a symlink named ".gitmodules".
func gitRefuses(name string, symlink bool) bool {
	if !gitNameSuspect(name) {
		return false
	}
	n := gitFoldName(name)
	if n == ".git" || n == "git~1" {
		return true
	}
	return symlink && (n == ".gitmodules" || n == "gitmod~1")
}

// isGitmodules reports whether git's fsck checks a file of this name as a
// .gitmodules (is_hfs_dotgitmodules, is_ntfs_dotgitmodules).
func isGitmodules(name string) bool {
	return gitNameSuspect(name) && IsGitmodulesName(gitFoldName(name))
}

// gitNameSuspect is a cheap filter for gitFoldName, which every entry of
// every walk would otherwise pay for (a tenth of a no-change checkpoint
// of 20,000 files): every name it can fold to ".git", "git~1",
// ".gitmodules" or "gitmod~1" starts with '.', or with 'g' or 'G' and
// holds a '~', or holds a non-ASCII byte (a code point HFS+ ignores may
// come first).
func gitNameSuspect(name string) bool {
	if name == "" {
		return false
	}
	switch name[0] {
	case '.':
		return true
	case 'g', 'G':
		// "git~1", "gitmod~1": NTFS short names always hold a '~'.
		return strings.IndexByte(name, '~') >= 0
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return true
		}
	}
	return false
}

// gitFoldName is a name as HFS+ and NTFS compare it: code points HFS+
// ignores removed, lower case, an NTFS alternate stream and trailing dots
// and spaces cut.
func gitFoldName(name string) string {
	n := strings.Map(func(r rune) rune {
		if slices.Contains(hfsIgnorable, r) {
			return -1
		}
		return r
	}, name)
	n = strings.ToLower(n)
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i] // NTFS alternate data streams: ".git::$INDEX_ALLOCATION"
	}
	return strings.TrimRight(n, " .")
}
