package vcs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
)

// DefaultAutoPackLimit is the estimated count of loose objects at which a
// checkpoint packs the loose objects its refs reach (SPEC §14.4): well
// under git's own `gc --auto` threshold (gc.auto, 6,700 by default), so
// checkpoints never make git's next command stop to collect garbage.
const DefaultAutoPackLimit = 512

// AutoPackLimit is the loose-object estimate at which a checkpoint packs:
// DefaultAutoPackLimit, or half the repository's gc.auto where that is
// lower (and not 0, which only turns git's own automatic gc off).
func (g *GitStore) AutoPackLimit() int {
	limit := DefaultAutoPackLimit
	cfg, err := readGitConfig(filepath.Join(g.commonDir, "config"))
	if err != nil {
		return limit
	}
	if n, err := strconv.Atoi(strings.TrimSpace(cfg.get("gc.auto"))); err == nil && n > 0 && n/2 < limit {
		limit = max(n/2, 1)
	}
	return limit
}

// autoPackSample are the fan-out directories whose loose objects
// LooseEstimate counts: git's `gc --auto` counts objects/17/ alone; sixteen
// directories make the estimate of a few hundred objects good to about
// 15% for sixteen small directory reads.
const autoPackSample = 16

// LooseEstimate estimates the store's own loose objects as git's
// `gc --auto` does, from a sample of the fan-out directories
// (objects/10/ to objects/1f/), scaled to all 256.
func (g *GitStore) LooseEstimate() int {
	n := 0
	for i := range autoPackSample {
		f, err := os.Open(filepath.Join(g.objDir, fmt.Sprintf("%02x", 0x10+i)))
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			if len(name) == 38 {
				n++
			}
		}
	}
	return n * 256 / autoPackSample
}

// AutoPack packs the loose objects the refs under prefix reach, when the
// loose-object estimate has grown by AutoPackLimit since the last time it
// packed: the estimate it left then is kept in the file marker (a missing
// or unreadable one counts as 0), so loose objects that are not ctxgit's
// (which the pack leaves to git's gc) do not make every checkpoint pack
// again. It returns nil when no pack was due.
//
// The walk stops at an object that is not loose: a packed commit or tree
// was packed with what it reaches, so the cost follows the loose objects,
// not the history. Like RepackLoose, it deletes a loose copy only once a
// durable pack whose index was read back holds the object (SPEC §14.4).
func (g *GitStore) AutoPack(ctx context.Context, prefix, marker string) (*RepackResult, error) {
	est := g.LooseEstimate()
	limit := g.AutoPackLimit()
	if est < limit {
		return nil, nil
	}
	last, own := readMarker(marker)
	if est < last+limit {
		return nil, nil
	}
	refs, err := g.ListRefs(prefix)
	if err != nil {
		return nil, err
	}
	roots := make([]Hash, 0, len(refs))
	for _, r := range refs {
		roots = append(roots, r.ID)
	}
	res, err := g.packLooseFrom(ctx, roots)
	if err != nil {
		return nil, err
	}
	if res.Pack != "" {
		own = append(own, strings.TrimSuffix(res.Pack, ".pack"))
	}
	// Packs this made, still there: from ownPackMerge on they become one,
	// so they never reach git's gc.autoPackLimit (50 packs) either.
	kept := own[:0]
	for _, base := range own {
		if _, err := os.Lstat(filepath.Join(g.objDir, "pack", base+".idx")); err == nil {
			kept = append(kept, base)
		}
	}
	own = kept
	if len(own) >= ownPackMerge {
		merged, left, err := g.mergeOwnPacks(ctx, own)
		if err != nil {
			return res, err
		}
		res.RemovedPacks = len(own) - len(left)
		res.RemovedBytes += merged.RemovedBytes
		// One that could not be deleted (open elsewhere, on Windows) is
		// still its own: merged again next time.
		own = append(left, strings.TrimSuffix(merged.Pack, ".pack"))
	}
	data := strconv.Itoa(g.LooseEstimate()) + "\n" + strings.Join(own, "\n")
	if err := atomicfile.Write(marker, []byte(strings.TrimSpace(data)+"\n"), 0o644); err != nil {
		return res, err
	}
	return res, nil
}

// ownPackMerge is how many packs of AutoPack's own make it merge them.
const ownPackMerge = 8

// readMarker reads AutoPack's file: the loose-object estimate it left,
// then the packs it made (names without extension), one a line; a
// missing or unreadable file is 0 and none.
func readMarker(path string) (int, []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || n < 0 {
		return 0, nil
	}
	var own []string
	for _, l := range lines[1:] {
		// Only a pack's own name: the file names nothing outside pack/.
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "pack-") && len(l) == len("pack-")+40 && isHex(l[len("pack-"):]) {
			own = append(own, l)
		}
	}
	return n, own
}

// mergeOwnPacks copies every object of the packs named (AutoPack's own:
// whole objects only) into one new pack, verifies it, and then deletes
// them, each index before its data (SPEC §14.4). It returns the packs
// whose index it could not delete.
func (g *GitStore) mergeOwnPacks(ctx context.Context, bases []string) (*RepackResult, []string, error) {
	pw, err := newPackWriter(filepath.Join(g.objDir, "pack"))
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*RepackResult, []string, error) {
		pw.abort()
		return nil, nil, fmt.Errorf("merging packs: %w", err)
	}
	seen := map[Hash]bool{}
	var written []Hash
	for _, base := range bases {
		idx, err := readPackIndex(filepath.Join(g.objDir, "pack", base+".idx"))
		if err != nil {
			return fail(err)
		}
		if err := idx.verifyPack(); err != nil {
			return fail(err)
		}
		for i := range idx.n {
			if err := ctxErr(ctx); err != nil {
				return fail(err)
			}
			at := idx.names + i*idx.stride
			var h Hash
			copy(h[:], idx.data[at:at+20])
			if seen[h] {
				continue
			}
			seen[h] = true
			t, data, err := idx.read(i, g.ReadObject)
			if err != nil {
				return fail(err)
			}
			entry, err := compressPackEntry(t, data)
			if err == nil {
				err = pw.append(h, entry)
			}
			if err != nil {
				return fail(err)
			}
			written = append(written, h)
		}
	}
	res := &RepackResult{}
	if err := g.sealPack(pw, written, res, "merging packs"); err != nil {
		return nil, nil, err
	}
	remove := func(path string) bool {
		size := fileSize(path)
		if os.Remove(path) != nil {
			return false
		}
		res.RemovedBytes += size
		return true
	}
	var left []string
	for _, base := range bases {
		path := filepath.Join(g.objDir, "pack", base)
		if path == pw.base {
			continue
		}
		if !remove(path + ".idx") {
			left = append(left, base)
			continue
		}
		removePackData(path, remove)
	}
	g.invalidatePacks()
	return res, left, nil
}

// packLooseFrom writes the store's own loose objects that roots reach,
// through loose commits and trees only, into one new pack, verifies it,
// and deletes their loose copies.
func (g *GitStore) packLooseFrom(ctx context.Context, roots []Hash) (*RepackResult, error) {
	res := &RepackResult{}
	seen := map[Hash]bool{}
	var pw *packWriter
	var written []Hash
	var paths []string
	abort := func(err error) (*RepackResult, error) {
		if pw != nil {
			pw.abort()
		}
		return nil, fmt.Errorf("packing loose objects: %w", err)
	}
	stack := append([]Hash(nil), roots...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		if err := ctxErr(ctx); err != nil {
			return abort(err)
		}
		path := loosePath(g.objDir, h)
		t, data, err := readLoose(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // packed, in an alternate, or missing: not ours to pack
		}
		if err != nil {
			return abort(fmt.Errorf("object %s: %w", h, err))
		}
		res.Reachable++
		switch t {
		case CommitObject:
			c, err := DecodeCommit(data)
			if err != nil {
				return abort(fmt.Errorf("commit %s: %w", h.Short(), err))
			}
			stack = append(append(stack, c.Tree), c.Parents...)
		case TreeObject:
			entries, err := DecodeTree(data)
			if err != nil {
				return abort(fmt.Errorf("tree %s: %w", h.Short(), err))
			}
			for _, e := range entries {
				if e.Mode != ModeGitlink {
					stack = append(stack, e.ID)
				}
			}
		}
		if pw == nil {
			if pw, err = newPackWriter(filepath.Join(g.objDir, "pack")); err != nil {
				return abort(err)
			}
		}
		entry, err := compressPackEntry(t, data)
		if err != nil {
			return abort(err)
		}
		if err := pw.append(h, entry); err != nil {
			return abort(err)
		}
		written = append(written, h)
		paths = append(paths, path)
	}
	if pw == nil {
		return res, nil
	}
	if err := ctxErr(ctx); err != nil {
		return abort(err)
	}
	if err := g.sealPack(pw, written, res, "packing loose objects"); err != nil {
		return nil, err
	}
	for _, p := range paths {
		size := fileSize(p)
		if os.Remove(p) == nil {
			res.RemovedLoose++
			res.RemovedBytes += size
		}
	}
	return res, nil
}

// ctxErr is ctx.Err() for an optional context.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}
