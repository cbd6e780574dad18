package vcs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// RepackMode says what a repack may delete (SPEC §14.4).
type RepackMode int

const (
	// RepackLoose moves the loose objects reachable from the roots into
	// one new pack, then deletes those loose copies, as `git
	// prune-packed` does. No object stops being readable and no pack is
	// touched, so it is safe in a repository ctxgit shares with the user:
	// whatever the roots no longer reach is left for git's own gc, which
	// knows every ref, reflog and index.
	RepackLoose RepackMode = iota
	// RepackAll keeps exactly what the roots, every ref, HEAD and every
	// reflog of the store reach, in one new pack, and deletes every other
	// loose object and pack (packs marked .keep and alternates are left
	// alone). Only for a store ctxgit owns, under the workspace lock.
	RepackAll
)

// RepackResult is what a repack did.
type RepackResult struct {
	Reachable    int    // objects reachable from the roots
	Packed       int    // objects written into the new pack
	Pack         string // the new pack's file name, "" when none was needed
	PackBytes    int64  // disk space of the new .pack and .idx
	RemovedLoose int    // loose object files deleted
	RemovedPacks int    // packs deleted
	RemovedTemp  int    // temporary files of interrupted writes deleted
	RemovedBytes int64  // disk space of every file deleted
	KeptRecent   int    // unreachable loose objects and packs kept as recent
}

// Reclaimed is the space the repack gave back: bytes deleted less bytes
// written (negative when packing cost more than it freed).
func (r *RepackResult) Reclaimed() int64 { return r.RemovedBytes - r.PackBytes }

// Repack packs the store's objects as mode says (SPEC §14.4). It is
// crash-safe: the new pack is written, fsynced and verified before any
// file is deleted, and only files that existed before it started and
// whose objects the new pack (or a pack that stays) holds, or that no
// root reaches, are deleted. A missing or unreadable object anywhere
// below the roots stops it before anything is deleted. So does ctx being
// done (Ctrl-C), checked between objects: the unfinished pack is removed
// and nothing else changes.
func (g *GitStore) Repack(ctx context.Context, mode RepackMode, roots []Hash) (*RepackResult, error) {
	loose, err := g.looseObjects()
	if err != nil {
		return nil, err
	}
	packs, err := g.localPacks()
	if err != nil {
		return nil, err
	}
	if mode == RepackAll {
		all, err := g.AllRoots()
		if err != nil {
			return nil, err
		}
		roots = append(append([]Hash(nil), roots...), all...)
	}
	g.invalidatePacks()
	idxs, err := g.packIndexes()
	if err != nil {
		return nil, err
	}
	// stays reports whether h is held by a pack (or an alternate) that
	// this repack does not delete.
	keepPack := map[string]bool{}
	for _, p := range packs {
		keepPack[p.base+".pack"] = p.keep
	}
	stays := func(h Hash) bool {
		for _, dir := range g.altDirs {
			if _, err := os.Lstat(loosePath(dir, h)); err == nil {
				return true
			}
		}
		for _, idx := range idxs {
			keep, local := keepPack[idx.pack]
			if (mode == RepackLoose || !local || keep) && idx.contains(h) {
				return true
			}
		}
		return false
	}

	res := &RepackResult{}
	var pw *packWriter
	var written []Hash
	var packedLoose []string // loose files whose objects are now packed
	abort := func(err error) (*RepackResult, error) {
		if pw != nil {
			pw.abort()
		}
		return nil, err
	}
	visit := func(h Hash, t ObjectType, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		res.Reachable++
		path, isLoose := loose[h]
		if mode == RepackLoose && !isLoose {
			return nil
		}
		if !stays(h) {
			if data == nil {
				var rt ObjectType
				if rt, data, err = g.ReadObject(h); err != nil {
					return err
				}
				if rt != t {
					return fmt.Errorf("object %s: is a %s, not a %s", h.Short(), rt, t)
				}
			}
			if pw == nil {
				if pw, err = newPackWriter(filepath.Join(g.objDir, "pack")); err != nil {
					return err
				}
			}
			entry, err := compressPackEntry(t, data)
			if err != nil {
				return err
			}
			if err := pw.append(h, entry); err != nil {
				return err
			}
			written = append(written, h)
		}
		if isLoose {
			packedLoose = append(packedLoose, path)
		}
		return nil
	}
	if err := WalkReachable(g, roots, nil, visit); err != nil {
		return abort(fmt.Errorf("repack: %w", err))
	}
	if err := ctx.Err(); err != nil {
		// The last moment to stop: finish renames the pack into place.
		return abort(err)
	}
	if pw != nil {
		if err := g.sealPack(pw, written, res, "repack"); err != nil {
			return nil, err
		}
	}

	// Nothing below this line can lose an object: every object a root
	// reaches is in the new pack, in a pack that stays, or in an
	// alternate.
	remove := func(path string) bool {
		size := fileSize(path)
		if err := os.Remove(path); err != nil {
			return false
		}
		res.RemovedBytes += size
		return true
	}
	if mode == RepackLoose {
		for _, path := range packedLoose {
			if remove(path) {
				res.RemovedLoose++
			}
		}
		return res, nil
	}
	reached := make(map[string]bool, len(packedLoose))
	for _, path := range packedLoose {
		reached[path] = true
	}
	for _, path := range loose {
		// An object no ref reaches yet may be a fetch's or a
		// checkpoint's in flight (they write objects before the ref):
		// only an old one is garbage, as with git's gc.pruneExpire.
		if !reached[path] && recent(path) {
			res.KeptRecent++
			continue
		}
		if remove(path) {
			res.RemovedLoose++
		}
	}
	for _, p := range packs {
		if p.keep || (pw != nil && p.base == pw.base) {
			continue
		}
		if recent(p.base + ".pack") {
			res.KeptRecent++
			continue
		}
		// The index goes first, so no reader finds the pack by it and
		// then misses the data.
		if !remove(p.base + ".idx") {
			continue
		}
		res.RemovedPacks++
		removePackData(p.base, remove)
	}
	// A full repack is a private store's (SPEC §14.4): only ctxgit writes
	// there.
	res.RemovedTemp = g.removeStaleTemp(remove, mode == RepackAll)
	g.removeEmptyFanout()
	g.invalidatePacks()
	return res, nil
}

// verifyPack rereads a pack's index and checks it holds every object
// written, before anything is deleted on its strength.
// sealPack finishes pw, lets the store see the new pack, checks that it
// holds every object written (no loose copy may go before that), and
// records it in res; what names the operation in an error.
func (g *GitStore) sealPack(pw *packWriter, written []Hash, res *RepackResult, what string) error {
	if err := pw.finish(); err != nil {
		return fmt.Errorf("%s: writing the pack: %w", what, err)
	}
	g.invalidatePacks()
	if err := verifyPack(pw.base, written); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	res.Pack = filepath.Base(pw.base) + ".pack"
	res.Packed = len(written)
	res.PackBytes = fileSize(pw.base+".pack") + fileSize(pw.base+".idx")
	return nil
}

func verifyPack(base string, written []Hash) error {
	idx, err := readPackIndex(base + ".idx")
	if err != nil {
		return err
	}
	if idx.n != len(written) {
		return fmt.Errorf("%s.idx: holds %d objects, %d were written", filepath.Base(base), idx.n, len(written))
	}
	for _, h := range written {
		if !idx.contains(h) {
			return fmt.Errorf("%s.idx: object %s is missing", filepath.Base(base), h.Short())
		}
	}
	return nil
}

// fileSize is the disk space a file takes: its allocated blocks where the
// system says, else its length. A small loose object takes a whole block,
// and that is the space a repack gives back.
func fileSize(path string) int64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return allocated(fi)
}

// looseObjects lists the store's own loose objects (not its alternates'),
// id → file.
func (g *GitStore) looseObjects() (map[Hash]string, error) {
	out := map[Hash]string{}
	dirs, err := os.ReadDir(g.objDir)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 || !isHex(d.Name()) {
			continue
		}
		files, err := os.ReadDir(filepath.Join(g.objDir, d.Name()))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		for _, f := range files {
			if len(f.Name()) != 38 || !isHex(f.Name()) {
				continue
			}
			h, err := ParseHash(d.Name() + f.Name())
			if err != nil {
				continue
			}
			out[h] = filepath.Join(g.objDir, d.Name(), f.Name())
		}
	}
	return out, nil
}

// LooseObjects counts the store's own loose objects and their bytes.
func (g *GitStore) LooseObjects() (count int, bytes int64, err error) {
	loose, err := g.looseObjects()
	if err != nil {
		return 0, 0, err
	}
	for _, p := range loose {
		bytes += fileSize(p)
	}
	return len(loose), bytes, nil
}

// IsLoose reports whether h is one of the store's own loose objects.
func (g *GitStore) IsLoose(h Hash) bool {
	_, err := os.Lstat(loosePath(g.objDir, h))
	return err == nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// localPack is one pack of the store's own pack directory.
type localPack struct {
	base string // path without extension
	keep bool   // a .keep file protects it
}

func (g *GitStore) localPacks() ([]localPack, error) {
	names, err := filepath.Glob(filepath.Join(g.objDir, "pack", "pack-*.idx"))
	if err != nil {
		return nil, err
	}
	var out []localPack
	for _, n := range names {
		base := strings.TrimSuffix(n, ".idx")
		_, err := os.Lstat(base + ".keep")
		out = append(out, localPack{base: base, keep: err == nil})
	}
	return out, nil
}

// removeStaleTemp deletes temporary files that killed writers left in the
// object directory (ctxgit's and git's names), once no live writer can
// own them (TempFile.Removable).
func (g *GitStore) removeStaleTemp(remove func(string) bool, private bool) int {
	files, _ := g.TempFiles(private)
	n := 0
	for _, f := range files {
		if f.Removable && f.remove(remove) {
			n++
		}
	}
	return n
}

// removeEmptyFanout removes loose-object directories a full repack
// emptied. Only RepackAll does this: in a shared repository a concurrent
// writer may be about to create a file in one.
func (g *GitStore) removeEmptyFanout() {
	for i := range 256 {
		os.Remove(filepath.Join(g.objDir, fmt.Sprintf("%02x", i)))
	}
}

// AllRoots lists every object a repository keeps alive by name: each ref
// (loose and packed, any namespace), HEAD when it is detached, and both
// sides of every reflog entry. Symbolic refs are skipped (their targets
// are refs). A ref that does not read as an object id is an error: a
// repack must never guess what is unused.
func (g *GitStore) AllRoots() ([]Hash, error) {
	seen := map[Hash]bool{}
	var out []Hash
	add := func(h Hash) {
		if !h.IsZero() && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	packed, err := g.readPackedRefs()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(packed))
	for n := range packed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add(packed[n])
	}
	readRefFile := func(path string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		s := strings.TrimSpace(string(data))
		if strings.HasPrefix(s, "ref:") {
			return nil
		}
		h, err := ParseHash(s)
		if err != nil || h.IsZero() {
			return corruptf("%s: corrupt ref file (%q)", path, truncate(s, 50))
		}
		add(h)
		return nil
	}
	stop := func(err error) error { return err }
	err = walkRefFiles(filepath.Join(g.commonDir, "refs"), func(p string) error {
		if strings.HasSuffix(p, ".lock") {
			return nil
		}
		return readRefFile(p)
	}, stop)
	if err != nil {
		return nil, err
	}
	if err := readRefFile(filepath.Join(g.commonDir, "HEAD")); err != nil {
		return nil, err
	}
	err = walkRefFiles(filepath.Join(g.commonDir, "logs"), func(p string) error {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			for _, s := range fields[:min(2, len(fields))] {
				if h, err := ParseHash(s); err == nil {
					add(h)
				}
			}
		}
		return sc.Err()
	}, stop)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// unreachableGrace is how long an object no ref reaches is kept: longer
// than any transfer or checkpoint takes to move its ref.
const unreachableGrace = time.Hour

// recent reports a file written within unreachableGrace.
func recent(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) < unreachableGrace
}
