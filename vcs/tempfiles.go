package vcs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/proc"
)

// Temporary files in the object directory (docs/cli.md#doctor). ctxgit names its
// own tmp_obj_ctxgit_<pid>_* (a loose object being written) and
// tmp_pack_ctxgit_<pid>_* (a pack): git's own prefixes, so `git prune`
// removes them as it removes its own, then ctxgit and the writer's pid,
// so ctxgit knows them as its own and can ask whether their writer still
// runs. A kill between create and rename leaves one behind.

// ctxgitTempTag follows git's tmp_obj_ / tmp_pack_ prefix in ctxgit's
// temporary object and pack names.
const ctxgitTempTag = "ctxgit_"

// tempPattern is the os.CreateTemp pattern for a temporary file of kind
// "obj" or "pack" written by this process.
func tempPattern(kind string) string {
	return fmt.Sprintf("tmp_%s_%s%d_", kind, ctxgitTempTag, os.Getpid())
}

// GitTempExpiry is how old a temporary file of git's own (or one of
// ctxgit's whose writer cannot be asked) must be before ctxgit removes
// it: git prune's default expiry for the tmp_ files it removes
// (gc.pruneExpire, "2.weeks.ago").
const GitTempExpiry = 14 * 24 * time.Hour

// LegacyTempExpiry is the age past which a ctxgit temporary file named
// before names carried a pid (.tmp- names, and tmp_ names in a private
// store) is taken for a killed writer's: ctxgit's writes take well under
// a second, and a pack being written keeps its mtime fresh.
const LegacyTempExpiry = time.Hour

// deadWriterGrace is how long a temporary file whose writer's pid is not
// running is kept anyway: a writer on another host sharing the
// repository (its pid means nothing here) keeps its file's mtime fresh
// while it writes.
const deadWriterGrace = time.Minute

// TempFile is a temporary file of an interrupted or running write in the
// object directory.
type TempFile struct {
	Path    string
	Size    int64
	ModTime time.Time
	// Ours is true for a name ctxgit gives its temporary files.
	Ours bool
	// Removable is true when no live writer can own it: ctxgit's, whose
	// writer is not running (or is past GitTempExpiry), or git's past
	// GitTempExpiry.
	Removable bool
	// packBase is set for a pack without an index: its path without
	// ".pack", so its sibling files go with it.
	packBase string
}

// remove deletes the file with rm, and for a pack without an index the
// files git keeps beside the pack too. It says whether the file went.
func (f TempFile) remove(rm func(string) bool) bool {
	if f.packBase != "" {
		return removePackData(f.packBase, rm)
	}
	return rm(f.Path)
}

// classifyTemp says whether name is a temporary file of the object
// directory, whether it is ctxgit's, and whether it may be removed now.
// In a private store only ctxgit writes: a tmp_ name without a pid is
// ctxgit's from before names carried one.
func classifyTemp(name string, age time.Duration, private bool) (isTemp, ours, removable bool) {
	if rest, ok := strings.CutPrefix(name, "tmp_"); ok {
		for _, kind := range []string{"obj_", "pack_", "idx_"} {
			if r, ok := strings.CutPrefix(rest, kind+ctxgitTempTag); ok {
				pidText, _, _ := strings.Cut(r, "_")
				pid, err := strconv.Atoi(pidText)
				if err == nil && pid > 0 {
					dead := pid != os.Getpid() && !proc.Alive(pid)
					return true, true, (dead && age > deadWriterGrace) || age > GitTempExpiry
				}
			}
		}
		if private {
			return true, true, age > LegacyTempExpiry
		}
		return true, false, age > GitTempExpiry
	}
	if atomicfile.IsTemp(name) {
		// .ctxgit-tmp-<pid>-<name>.*: an idx or a config file being
		// replaced.
		if pid, ok := atomicfile.TempPID(name); ok {
			dead := pid != os.Getpid() && !proc.Alive(pid)
			return true, true, (dead && age > deadWriterGrace) || age > GitTempExpiry
		}
		return true, true, age > LegacyTempExpiry
	}
	if strings.HasPrefix(name, ".tmp-") || strings.HasPrefix(name, ".pack-") && strings.Contains(name, ".tmp-") {
		// ctxgit's names before this release.
		return true, true, age > LegacyTempExpiry
	}
	return false, false, false
}

// TempFiles lists the temporary files in the object directory, its pack
// directory and its 256 fan-out directories, and the packs without an
// index (orphanPack). private says the store is a workspace's private
// store, which only ctxgit writes.
func (g *GitStore) TempFiles(private bool) ([]TempFile, error) {
	var out []TempFile
	scan := func(dir string, packs bool) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		have := map[string]bool{}
		if packs {
			for _, e := range entries {
				have[e.Name()] = true
			}
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			age := time.Since(fi.ModTime())
			path := filepath.Join(dir, e.Name())
			if isTemp, ours, removable := classifyTemp(e.Name(), age, private); isTemp {
				out = append(out, TempFile{Path: path, Size: fi.Size(), ModTime: fi.ModTime(), Ours: ours, Removable: removable})
			} else if base, ok := orphanPack(e.Name(), have); packs && ok {
				out = append(out, TempFile{Path: path, Size: fi.Size(), ModTime: fi.ModTime(),
					Removable: age > orphanPackExpiry(private), packBase: filepath.Join(dir, base)})
			}
		}
		return nil
	}
	if err := scan(g.objDir, false); err != nil {
		return nil, err
	}
	if err := scan(filepath.Join(g.objDir, "pack"), true); err != nil {
		return nil, err
	}
	for i := range 256 {
		if err := scan(filepath.Join(g.objDir, fmt.Sprintf("%02x", i)), false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RemoveStaleTemp deletes the temporary files no live writer can own
// (TempFile.Removable), returning how many and their size.
func (g *GitStore) RemoveStaleTemp(private bool) (int, int64, error) {
	files, err := g.TempFiles(private)
	if err != nil {
		return 0, 0, err
	}
	n, size := 0, int64(0)
	rm := func(path string) bool { return os.Remove(path) == nil }
	for _, f := range files {
		if f.Removable && f.remove(rm) {
			n++
			size += f.Size
		}
	}
	return n, size, nil
}

// orphanPack says whether name, in a pack directory holding the names in
// have, is a pack without an index, and returns its name without
// ".pack". A pack is renamed into place before its index, and a repack
// deletes an old pack's index before its data, so a kill between the two
// leaves a pack no reader will ever open (git counts it as garbage) and
// no ref needs: a ref moves only once the index is written. A pack with
// a .keep is never one: git and repack leave kept packs alone.
func orphanPack(name string, have map[string]bool) (string, bool) {
	base, ok := strings.CutSuffix(name, ".pack")
	if !ok || !strings.HasPrefix(base, "pack-") || have[base+".idx"] || have[base+".keep"] {
		return "", false
	}
	return base, true
}

// orphanPackExpiry is how old a pack without an index must be before it
// is removed: the temporary files' age rules, an hour in a private store
// (ctxgit's writes take well under a second) and git's two weeks in a
// repository, where git's own fetch renames its pack the same way. An
// orphan is not marked Ours even in a private store: ctxgit runs git
// there too (fetch), and a pack's name does not say who wrote it.
func orphanPackExpiry(private bool) time.Duration {
	if private {
		return LegacyTempExpiry
	}
	return GitTempExpiry
}

// packSiblingExts are the files git keeps beside a pack's data, named
// after it; they go when the pack goes.
var packSiblingExts = []string{".rev", ".bitmap", ".mtimes", ".promisor"}

// removePackData removes base.pack and then its sibling files with rm,
// saying whether the pack went. The index, which readers find a pack by,
// is the caller's to remove first.
func removePackData(base string, rm func(string) bool) bool {
	removed := rm(base + ".pack")
	for _, ext := range packSiblingExts {
		rm(base + ext)
	}
	return removed
}
