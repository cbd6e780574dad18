package vcs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
)

// Ref locking follows git's protocol so ctxgit and concurrent git processes
// (gc's pack-refs, update-ref) never corrupt each other: create
// "<ref>.lock" exclusively, re-read and compare the current value, write the
// new value into the lock, fsync, rename over the ref. A failed swap removes
// only the lock, so the ref is never left empty.
const (
	// refLockWait is how long to wait for another process's lock; git's
	// own default (core.filesRefLockTimeout) is 100ms.
	refLockWait = time.Second
	// staleRefLock is the age past which a lock file is taken to be left by
	// a killed process. Git holds ref locks for milliseconds.
	staleRefLock = 30 * time.Second
)

func (g *GitStore) refPath(name string) string {
	return filepath.Join(g.commonDir, filepath.FromSlash(name))
}

// ReadRef implements Store: the loose ref file, else packed-refs.
func (g *GitStore) ReadRef(name string) (Hash, error) {
	h, err := g.readLoose(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return h, err
	}
	packed, err := g.readPackedRefs()
	if err != nil {
		return ZeroHash, err
	}
	if h, ok := packed[name]; ok {
		return h, nil
	}
	return ZeroHash, fmt.Errorf("%s: %w", name, ErrRefNotFound)
}

func (g *GitStore) readLoose(name string) (Hash, error) {
	path := g.refPath(name)
	data, err := atomicfile.ReadFile(path) // another writer may be renaming it
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			return ZeroHash, fs.ErrNotExist
		}
		return ZeroHash, err
	}
	s := strings.TrimSpace(string(data))
	if strings.HasPrefix(s, "ref:") {
		return ZeroHash, corruptf("%s: symbolic ref where a checkpoint ref was expected", path)
	}
	h, err := ParseHash(s)
	if err != nil || h.IsZero() {
		return ZeroHash, corruptf("%s: corrupt ref file (%q)", path, truncate(s, 50))
	}
	return h, nil
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// readPackedRefs parses packed-refs; a missing file is empty.
func (g *GitStore) readPackedRefs() (map[string]Hash, error) {
	path := filepath.Join(g.commonDir, "packed-refs")
	data, err := atomicfile.ReadFile(path) // another writer may be renaming it
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	refs := map[string]Hash{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hex, name, ok := strings.Cut(line, " ")
		h, err := ParseHash(hex)
		if !ok || err != nil || h.IsZero() {
			return nil, corruptf("%s:%d: corrupt packed-refs line", path, n)
		}
		refs[name] = h
	}
	return refs, sc.Err()
}

// lockFile creates path+".lock" exclusively, waiting a while for another
// holder and taking over a lock old enough to have been abandoned.
func lockFile(path string, stale time.Duration) (*os.File, error) {
	lock := path + ".lock"
	deadline := time.Now().Add(refLockWait)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// git's pack-refs removed the empty directory between our
			// MkdirAll and OpenFile: make it again (within the deadline).
		case !errors.Is(err, fs.ErrExist):
			return nil, err
		default:
			if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > stale && os.Remove(lock) == nil {
				continue
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s exists: another process holds the lock (remove it if no git or ctxgit process is running): %w", lock, ErrRefConflict)
		}
		time.Sleep(delay)
	}
}

func rollback(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

// lockRef takes a ref's lock and reads its current value (ZeroHash when
// absent) for a compare-and-swap; the caller commits or rolls back f.
func (g *GitStore) lockRef(name string) (f *os.File, path string, cur Hash, err error) {
	if err := CheckRefName(name); err != nil {
		return nil, "", ZeroHash, err
	}
	path = g.refPath(name)
	stale := staleRefLock
	if p := g.ownedRefs.Load(); p != nil && *p != "" && strings.HasPrefix(name, *p) {
		// Every writer of these refs holds the caller's lock first: a
		// ref lock still there after the wait was left by a killed one.
		stale = refLockWait
	}
	if f, err = lockFile(path, stale); err != nil {
		return nil, "", ZeroHash, err
	}
	cur, err = g.ReadRef(name)
	if errors.Is(err, ErrRefNotFound) {
		cur, err = ZeroHash, nil
	}
	if err != nil {
		rollback(f)
		return nil, "", ZeroHash, err
	}
	return f, path, cur, nil
}

func conflict(name string, cur, want Hash) error {
	return fmt.Errorf("%s is at %s, expected %s: %w", name, shortOrNone(cur), shortOrNone(want), ErrRefConflict)
}

// UpdateRef implements Store.
func (g *GitStore) UpdateRef(name string, newID, oldID Hash) error {
	f, path, cur, err := g.lockRef(name)
	if err != nil {
		return err
	}
	if cur != oldID {
		rollback(f)
		return conflict(name, cur, oldID)
	}
	if err := atomicfile.Commit(f, path, []byte(newID.String()+"\n")); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	return nil
}

// DeleteRef implements Store: the loose file, and the packed-refs line
// under packed-refs.lock as git does.
func (g *GitStore) DeleteRef(name string, oldID Hash) error {
	f, path, cur, err := g.lockRef(name)
	if err != nil {
		return err
	}
	defer rollback(f)
	if cur.IsZero() {
		return fmt.Errorf("%s: %w", name, ErrRefNotFound)
	}
	if cur != oldID {
		return conflict(name, cur, oldID)
	}
	packed, err := g.readPackedRefs()
	if err != nil {
		return err
	}
	if _, ok := packed[name]; ok {
		if err := g.removePacked(name); err != nil {
			return err
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (g *GitStore) removePacked(name string) error {
	path := filepath.Join(g.commonDir, "packed-refs")
	f, err := lockFile(path, staleRefLock)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		rollback(f)
		return err
	}
	var out bytes.Buffer
	skipPeeled := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "^") && skipPeeled {
			continue
		}
		skipPeeled = false
		if _, n, ok := strings.Cut(strings.TrimRight(line, "\n"), " "); ok && n == name && !strings.HasPrefix(line, "#") {
			skipPeeled = true
			continue
		}
		out.WriteString(line)
	}
	return atomicfile.Commit(f, path, out.Bytes())
}

// ListRefs implements Store: loose refs under the prefix's directory merged
// with packed ones, loose winning as in git.
func (g *GitStore) ListRefs(prefix string) ([]Ref, error) {
	return g.listRefs(prefix, func(err error) error { return err })
}

// listRefs is ListRefs and ScanRefs: the loose refs under prefix merged
// with the packed ones, loose winning as in git, sorted by name. A ref
// that does not read, or a folder that does not list, goes to bad, which
// returns it to stop the listing or nil to leave that ref out and go on.
//
// The loose refs are read first and packed-refs after, as git's
// files backend does (refs/files-backend.c, files_ref_iterator_begin):
// git pack-refs (gc's included) writes packed-refs before it deletes the
// loose files, so a loose ref that vanishes between the folder listing
// and its read is in the packed-refs read after it. A ref gone from both
// was deleted, and is left out; never an error.
func (g *GitStore) listRefs(prefix string, bad func(error) error) ([]Ref, error) {
	found := map[string]Hash{}
	shadowed := map[string]bool{} // loose files that did not read: no packed value shows through
	var vanished []string
	dir := prefix
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[:i]
	}
	err := walkRefFiles(g.refPath(dir), func(p string) error {
		if strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(g.commonDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) || CheckRefName(name) != nil {
			return nil
		}
		if beforeLooseRead != nil {
			beforeLooseRead(name)
		}
		h, err := g.readLoose(name)
		if errors.Is(err, fs.ErrNotExist) {
			vanished = append(vanished, name) // packed meanwhile, or deleted
			return nil
		}
		if err != nil {
			shadowed[name] = true // the loose file shadows a packed value
			return bad(err)
		}
		found[name] = h
		return nil
	}, bad)
	if err != nil {
		if err := bad(err); err != nil {
			return nil, err
		}
	}
	packed, err := g.readPackedRefs()
	if err != nil {
		if err := bad(err); err != nil {
			return nil, err
		}
	}
	for n, h := range packed {
		if _, loose := found[n]; !loose && !shadowed[n] && strings.HasPrefix(n, prefix) {
			found[n] = h
		}
	}
	for _, n := range vanished {
		if _, ok := found[n]; ok {
			continue
		}
		// A ref can also have moved back to a loose file after our
		// packed-refs read (a ref update after pack-refs): read it once
		// more as ReadRef does.
		if h, err := g.ReadRef(n); err == nil {
			found[n] = h
		}
	}
	out := make([]Ref, 0, len(found))
	for n, h := range found {
		out = append(out, Ref{n, h})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// beforeLooseRead, set only by tests, runs between a loose ref's listing
// and its read: where git pack-refs races a listing.
var beforeLooseRead func(name string)

// walkRefFiles is the one walk of loose ref files: it calls visit with
// the path of every file under dir, loose refs and their .lock files
// alike. A dir that does not exist holds no refs. An error reading a
// folder goes to walkErr, which returns it to stop the walk or nil to go
// on without that folder.
func walkRefFiles(dir string, visit func(path string) error, walkErr func(error) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return walkErr(err)
		}
		if d.IsDir() {
			return nil
		}
		return visit(p)
	})
}

// ReadHEAD resolves a repository's HEAD to a commit id (ZeroHash for an
// unborn branch). It is used to record nested repositories as gitlinks.
func ReadHEAD(gitDir string) (Hash, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ZeroHash, err
	}
	s := strings.TrimSpace(string(data))
	target, ok := strings.CutPrefix(s, "ref: ")
	if !ok {
		return ParseHash(s)
	}
	common, err := commonDir(gitDir)
	if err != nil {
		return ZeroHash, err
	}
	g := &GitStore{commonDir: common}
	h, err := g.ReadRef(strings.TrimSpace(target))
	if errors.Is(err, ErrRefNotFound) {
		return ZeroHash, nil
	}
	return h, err
}

func shortOrNone(h Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.Short()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// OwnRefLocks tells the store that its caller holds a lock every writer of
// the refs under prefix takes first (ctxgit's workspace lock), so a ref's
// lock file that outlives the wait for it (git's own commands hold one for
// milliseconds) was left by a killed process and is taken over. "" ends it.
func (g *GitStore) OwnRefLocks(prefix string) {
	g.ownedRefs.Store(&prefix)
}
