package vcs

import (
	"context"
	"errors"
	"fmt"
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

	opts   SnapshotOptions
	cache  *statCache
	old    *statCache
	dirty  bool // the new cache differs from the old
	listed int  // directories read from the disk, not the cache
}

type snapNode struct {
	// A file's mode and id are st.mode and st.id; a directory's too (its
	// tree, or a gitlink's commit). One node per file that missed the
	// stat cache is the first snapshot's largest live cost (every file
	// misses), so a file's node holds only what a file needs: what only
	// directories need is behind dir.
	name    string
	path    string // workspace-relative
	st      statEntry
	link    []byte   // symlink target
	dir     *snapDir // directories only
	isDir   bool
	modules bool // a .gitmodules to check as git fsck does
	pending bool // needs hashing: the stat cache missed
	dropped bool // could not be read: not in the tree
}

// snapDir is what a directory's node holds beyond a file's.
type snapDir struct {
	kids    []*snapNode // entries that missed the stat cache, and subdirectories
	listing *dirListing
	// hits are a directory's files that matched the stat cache: same
	// name, same stat data. They get no node of their own (at 100,000
	// files, nodes were 40% of a no-change checkpoint's memory); each is
	// its index in the directory's cached files.
	hits []uint32
}

// dirListing is how a directory was listed, for the stat cache.
type dirListing struct {
	seen      dirStat
	listed    bool     // seen may be cached: see cachedDir
	fromCache bool     // entries came from the cache, not the disk
	entries   []dirent // what was walked: from the disk, or rebuilt from the cache
}

type walker struct {
	opts      SnapshotOptions
	prefix    string // Root's path inside the repository, "" or "dir/"
	fixed     *ignore.Matcher
	excludes  *ignore.Matcher
	anySecret *ignore.Matcher
	secrets   []*ignore.Matcher
	res       *SnapshotResult
	pending   []*snapNode
	start     int64

	mu sync.Mutex // guards res's lists during the walk

	idx    *trackedIndex // what git tracks (tracked.go)
	types  fsTypes       // file system types by device
	listed atomic.Int64  // directories read from the disk

	fold      bool  // core.ignoreCase: match ignore rules and tracked paths folded
	prevStore Store // where Previous is read
	keptOnce  sync.Once
	kept      map[string]uint32 // see keptModes

	ctx context.Context // opts.Ctx, or one never done
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
	res.cache = newStatCache(opts.StoreKey, len(res.old.dirs))

	w := &walker{opts: opts, res: res, start: opts.Start.Add(-racyMargin).UnixNano(), fold: opts.FS.IgnoreCase, prevStore: s, ctx: opts.Ctx}
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
	m, err := w.baseMatcher()
	if err != nil {
		return nil, err
	}
	root := &snapNode{isDir: true, dir: new(snapDir)}
	if err := w.walkRoot(opts.Root, m, root); err != nil {
		return nil, err
	}
	res.listed = int(w.listed.Load())
	res.cache.tracked = w.idx.forCache()
	res.dirty = res.dirty || !res.cache.tracked.equal(res.old.tracked)
	w.collectPending(root)
	if err := w.hashPending(s); err != nil {
		return nil, err
	}
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	tree, _, err := w.writeTree(s, root, "")
	if err != nil {
		return nil, err
	}
	res.Tree = tree
	// A file hashed again but still too recent to cache (and so still
	// absent) changes nothing worth writing; a directory gone does.
	res.dirty = res.dirty || len(res.cache.dirs) != len(res.old.dirs)
	sort.Strings(res.Skipped)
	sort.Strings(res.TooLarge)
	sort.Strings(res.Nested)
	return res, nil
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
	abs, rel string
	m        *ignore.Matcher
	node     *snapNode
	// onlyTracked is set below an ignored directory entered because git
	// tracks something in it: there only tracked paths are kept.
	onlyTracked bool
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
		stack  = []dirTask{{abs: abs, m: m, node: root}}
		active = 0
		wg     sync.WaitGroup
	)
	worker := func() {
		defer wg.Done()
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
			active++
			mu.Unlock()

			subdirs := w.walkDir(t)

			mu.Lock()
			stack = append(stack, subdirs...)
			active--
			mu.Unlock()
			cond.Broadcast()
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
func (w *walker) walkDir(t dirTask) []dirTask {
	if w.ctx.Err() != nil {
		// Interrupted: the workers drain the stack without listing.
		return nil
	}
	// The root may be reached through a symlink; below it, a directory
	// swapped for a symlink since its parent was listed is not followed.
	d, err := openDir(t.abs, t.rel == "", &w.types)
	if err != nil {
		t.node.dropped = true
		w.skip(t.rel+"/", err)
		return nil
	}
	defer d.close()
	// A directory whose stat data is the one its cached listing was
	// taken under has the same entries (git's untracked cache); its
	// files are still lstat'ed below.
	cached := w.res.old.dirs[t.rel]
	l := &dirListing{seen: d.st, listed: d.cacheable && d.st.mtime < w.start}
	var entries []dirent
	if d.cacheable && cached != nil && cached.listed && cached.seen == d.st {
		entries, l.fromCache = cached.listing(), true
	} else if entries, err = d.readDir(); err != nil {
		t.node.dropped = true
		w.skip(t.rel+"/", err)
		return nil
	} else {
		w.listed.Add(1)
	}
	l.entries = entries
	t.node.dir.listing = l
	if p := w.opts.Progress; p != nil {
		p.Scanned.Add(int64(len(entries)))
	}
	if t.rel != "" {
		for _, de := range entries {
			if de.Name() == ".git" {
				t.node.isDir = false
				if nested, err := repoAt(t.abs); err == nil {
					w.gitlink(t.node, t.rel, nested)
				} else {
					t.node.dropped = true
				}
				return nil
			}
		}
	}
	m := t.m
	for _, de := range entries {
		// On a case-insensitive file system git's open of ".gitignore"
		// finds ".GitIgnore" too.
		if (de.Name() == ".gitignore" || w.fold && strings.EqualFold(de.Name(), ".gitignore")) && de.Type().IsRegular() {
			if data, err := regfile.ReadFile(filepath.Join(t.abs, de.Name()), maxIgnoreFile); err == nil {
				src := joinRel(t.rel, de.Name())
				m = m.Push(w.patterns(data, strings.TrimSuffix(w.prefix+t.rel, "/"), src))
			}
			break
		}
	}
	dir := t.node.dir
	dir.kids = make([]*snapNode, 0, len(entries))
	var subdirs []dirTask
	for _, de := range entries {
		name := de.Name()
		if name == ".git" {
			continue
		}
		r := joinRel(t.rel, name)
		typ := de.Type()
		if gitRefuses(name, typ&fs.ModeSymlink != 0) {
			why := "a name git refuses in a tree"
			if typ&fs.ModeSymlink != 0 && isGitmodules(name) {
				why = "a symlink named .gitmodules, which git fsck rejects; left out"
			}
			w.skip(r, errors.New(why))
			continue
		}
		isDir := typ.IsDir()
		mr := w.matchPath(r)
		if w.fixed.Match(mr, isDir) || w.secretRule(r, isDir) || w.excludes.Match(mr, isDir) {
			continue
		}
		kidOnlyTracked := t.onlyTracked
		if t.onlyTracked || m.Match(w.matchPath(w.prefix+r), isDir) {
			if !w.isTracked(w.prefix+r, isDir, !t.onlyTracked) {
				continue
			}
			kidOnlyTracked = true
		}
		switch {
		case isDir:
			kid := &snapNode{name: name, isDir: true, path: r, dir: new(snapDir)}
			dir.kids = append(dir.kids, kid)
			subdirs = append(subdirs, dirTask{abs: filepath.Join(t.abs, name), rel: r, m: m, node: kid, onlyTracked: kidOnlyTracked})
		case typ&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(t.abs, name))
			if err != nil {
				w.skip(r, err)
				continue
			}
			dir.kids = append(dir.kids, &snapNode{name: name, st: statEntry{mode: ModeSymlink}, link: []byte(target), pending: true, path: r})
		case typ.IsRegular():
			if n, hit := w.fileNode(d, r, name, cached); hit >= 0 {
				dir.hits = append(dir.hits, uint32(hit))
			} else if n != nil {
				if isGitmodules(name) && n.pending {
					n.modules = true
				}
				dir.kids = append(dir.kids, n)
			}
		}
		// Sockets, pipes and devices have no place in a tree.
	}
	return subdirs
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
// the stat cache: a file that matches it is returned as its index in
// cached.files, any other as a node (nil when left out).
func (w *walker) fileNode(d openedDir, rel, name string, cached *cachedDir) (*snapNode, int) {
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
		target, err := regfile.ReadFile(filepath.Join(d.abs, name), maxLinkFile)
		if err != nil {
			w.skip(rel, err)
			return nil, -1
		}
		return &snapNode{name: name, st: statEntry{mode: ModeSymlink}, link: target, pending: true, path: rel}, -1
	}
	if i := cached.index(name); i >= 0 {
		if old := cached.files[i].e; old.size == e.size && old.mtime == e.mtime &&
			old.ctime == e.ctime && old.ino == e.ino && old.mode == e.mode {
			return nil, i
		}
	}
	return &snapNode{name: name, path: rel, st: e, pending: true}, -1
}

// collectPending lists, in tree order, the files the cache missed.
func (w *walker) collectPending(n *snapNode) {
	for _, k := range n.dir.kids {
		switch {
		case k.isDir:
			w.collectPending(k)
		case k.pending:
			w.pending = append(w.pending, k)
		}
	}
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

// hashPending reads, hashes and stores the files the cache missed, on
// several cores.
func (w *walker) hashPending(s Store) error {
	var next atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	progress := w.opts.Progress
	if progress == nil {
		progress = new(Progress)
	}
	progress.ToHash.Store(int64(len(w.pending)))
	for range min(w.opts.Workers, max(len(w.pending), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(w.pending) || w.ctx.Err() != nil {
					return
				}
				n := w.pending[i]
				var id Hash
				var err error
				size := int64(len(n.link))
				if n.link != nil {
					id, err = s.WriteObject(BlobObject, n.link)
				} else {
					var skipErr error
					id, size, skipErr, err = w.storeFile(s, n)
					if skipErr != nil {
						n.dropped = true
						w.skip(n.path, skipErr)
					}
					if n.dropped {
						continue
					}
				}
				progress.Hashed.Add(1)
				progress.Bytes.Add(size)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("storing %s: %w", n.path, err)
				}
				n.st.id = id
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	for _, n := range w.pending {
		if !n.dropped {
			w.res.Hashed++
		}
	}
	return nil
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
	abs := filepath.Join(w.opts.Root, filepath.FromSlash(n.path))
	// A file shrinking while a stream reads it is read again; a file
	// rewritten on every read is given up on.
	for range 3 {
		f, oerr := regfile.Open(abs)
		if oerr != nil {
			return ZeroHash, 0, oerr, nil
		}
		info := f.Info()
		size = info.Size
		if w.opts.MaxFileSize > 0 && size > w.opts.MaxFileSize {
			f.Close()
			n.dropped = true
			w.mu.Lock()
			w.res.TooLarge = append(w.res.TooLarge, fmt.Sprintf("%s (%d bytes)", n.path, size))
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

// writeTree computes a directory's tree bottom-up, writing only trees the
// stat cache does not already know. It reports false for an empty
// directory, which git does not record.
func (w *walker) writeTree(s Store, n *snapNode, rel string) (Hash, bool, error) {
	h, ok, _, err := w.tree(s, n, rel)
	return h, ok, err
}

// tree computes a directory's tree bottom-up, writing only trees the store
// may lack. As git's cache-tree does, a directory whose files all matched
// the stat cache, whose subtrees are unchanged and whose entry count is the
// same keeps its previous id without being encoded again. It reports false
// for an empty directory, which git does not record, and whether the tree
// is unchanged since the cache was saved.
func (w *walker) tree(s Store, n *snapNode, rel string) (Hash, bool, bool, error) {
	// First the subtrees, the counts, and whether anything changed: an
	// unchanged directory (most of them, in a no-change checkpoint) then
	// returns its previous tree without building entries or cache records
	// that would only be dropped.
	oldDir := w.res.old.dirs[rel]
	same := true
	nEntries, nFiles := len(n.dir.hits), len(n.dir.hits)
	w.res.Files += len(n.dir.hits)
	for _, i := range n.dir.hits {
		w.res.Bytes += oldDir.files[i].e.size
	}
	for _, k := range n.dir.kids {
		switch {
		case k.dropped:
		case k.isDir:
			h, ok, kidSame, err := w.tree(s, k, k.path)
			if err != nil {
				return ZeroHash, false, false, err
			}
			k.st.id = h
			if ok {
				nEntries++
			} else {
				k.dropped = true // empty: git records no such tree
			}
			same = same && kidSame && ok
		default:
			nEntries++
			same = false // a file with a node missed the cache
			w.res.Files++
			if k.st.mode != ModeGitlink {
				w.res.Bytes += k.st.size
				nFiles++
			}
		}
	}
	if nEntries == 0 && rel != "" {
		return ZeroHash, false, false, nil
	}
	// Every file a hit means each is cached now as it was (a hit is
	// never a link, and its mtime is older than any later start).
	if same && oldDir != nil && len(oldDir.files) == nFiles && oldDir.tree.entries == uint32(nEntries) && oldDir.tree.stored {
		d := &cachedDir{tree: oldDir.tree, files: oldDir.files}
		w.keepListing(n, d, oldDir)
		w.res.cache.dirs[rel] = d
		return oldDir.tree.id, true, true, nil
	}
	entries := make([]TreeEntry, 0, nEntries)
	dir := &cachedDir{files: make([]cachedFile, 0, nFiles)}
	for _, i := range n.dir.hits {
		// A hit is cached as it was: its mtime is older than any later
		// start.
		f := oldDir.files[i]
		entries = append(entries, TreeEntry{Name: f.name, Mode: f.e.mode, ID: f.e.id})
		dir.files = append(dir.files, f)
	}
	for _, k := range n.dir.kids {
		switch {
		case k.dropped:
		case k.isDir:
			entries = append(entries, TreeEntry{Name: k.name, Mode: ModeDir, ID: k.st.id})
		default:
			entries = append(entries, TreeEntry{Name: k.name, Mode: k.st.mode, ID: k.st.id})
			if k.st.mode == ModeGitlink {
				continue
			}
			// A file changed within the racy margin is not cached: a
			// further change could share its mtime. (ctime is compared
			// for equality on use, which catches a content change whose
			// mtime was set back.)
			switch {
			case k.link != nil:
			case k.st.mtime < w.start:
				e := k.st
				dir.files = append(dir.files, cachedFile{k.name, e})
				w.res.dirty = true
			default:
				// Too recent to cache. Its old entry, if any, is kept: it
				// can never match the file's new stat (the ctime moved),
				// and keeping it spares rewriting the cache until the
				// file is old enough to cache anew.
				if old, ok := oldDir.lookup(k.name); ok {
					dir.files = append(dir.files, cachedFile{k.name, old})
				}
			}
		}
	}
	if same && oldDir != nil && len(oldDir.files) == len(dir.files) {
		dir.files = oldDir.files // every file matched it: same names, same stat
	} else {
		slices.SortFunc(dir.files, func(a, b cachedFile) int { return strings.Compare(a.name, b.name) })
	}
	var old dirEntry
	if oldDir != nil {
		old = oldDir.tree
		if len(oldDir.files) != len(dir.files) {
			w.res.dirty = true
		}
	}
	w.keepListing(n, dir, oldDir)
	w.res.cache.dirs[rel] = dir
	if same && oldDir != nil && old.entries == uint32(len(entries)) {
		dir.tree = old
		if old.stored {
			return old.id, true, true, nil
		}
		// Unchanged but never written (a tree ctxgit extends): write it.
	}
	SortTree(entries)
	data := EncodeTree(entries)
	h := HashObject(TreeObject, data)
	// A new tree id alone is no reason to rewrite the cache: the saved
	// record names an older tree that still exists, and only costs this
	// directory a re-encode next time.
	if old.id == h && old.stored {
		dir.tree = old
		return h, true, true, nil
	}
	dir.tree = dirEntry{id: h, entries: uint32(len(entries))}
	if _, err := s.WriteObject(TreeObject, data); err != nil {
		return ZeroHash, false, false, err
	}
	return h, true, old.id == h, nil
}

// keepListing records in dir, the new cache's record of n, how n was
// listed. A listing read again that holds what the cached one held does
// not make the cache worth rewriting (a directory ctxgit itself writes to,
// .ctxgit, changes its times at every checkpoint): it is only read again
// next time.
func (w *walker) keepListing(n *snapNode, dir, old *cachedDir) {
	l := n.dir.listing
	if l == nil {
		return
	}
	dir.seen, dir.listed = l.seen, l.listed
	if l.fromCache && len(dir.files) == len(old.files) && (len(dir.files) == 0 || &dir.files[0] == &old.files[0]) {
		dir.others = old.others // the same files, so the same others
		return
	}
	// The others are what the listing holds besides the files cached
	// now: a file newly cached (tracked, no longer ignored, no longer
	// racy) leaves them, one no longer cached joins them.
	dir.others = othersOf(l.entries, dir.files)
	if !l.fromCache && (old == nil || !slices.Equal(dir.others, old.others) || dir.listed && !old.listed) {
		w.res.dirty = true
	}
}

// othersOf is what a listing holds besides files, sorted by name.
func othersOf(entries []dirent, files []cachedFile) []dirent {
	var out []dirent
	for _, e := range entries {
		if e.typ.IsRegular() {
			i := sort.Search(len(files), func(i int) bool { return files[i].name >= e.name })
			if i < len(files) && files[i].name == e.name {
				continue
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	return out
}

// SaveCache stores the stat cache once the snapshot is reachable from
// anchor, a commit in base. Directory entries are kept only for trees base
// really holds, so a tree that was staged but never written (a snapshot
// root later extended) is never trusted.
func (r *SnapshotResult) SaveCache(base Store, anchor Hash) error {
	if r.opts.StatCache == "" {
		return nil
	}
	if !r.dirty && r.CacheNote == "" && !r.old.anchor.IsZero() {
		// Nothing changed: the saved cache, anchored at an earlier
		// checkpoint of the same content, is still right.
		return nil
	}
	for _, d := range r.cache.dirs {
		if !d.tree.stored {
			ok, err := base.HasObject(d.tree.id)
			d.tree.stored = err == nil && ok
		}
	}
	r.cache.anchor = anchor
	return r.cache.save(r.opts.StatCache)
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
