package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// StatusUntracked marks a file of the working tree that git's index does
// not hold: `git status` lists it under "Untracked files" (its porcelain
// code is "??").
const StatusUntracked = "?"

// uncommittedFiles are the report's "Not committed" section: the working
// tree as it is now against HEAD's tree (headTree, the workspace's part
// of it), as `git status` shows the two compared (modified, added,
// deleted, renamed among the files git tracks, untracked). The working
// tree is read as a checkpoint would read it (the workspace's ignore
// rules, never ctxgit's private .ctxgit/local/), through a view that
// hashes and stores nothing: files the stat cache vouches for are not
// even read, the rest are hashed, and no object, ref or stat cache is
// written.
func uncommittedFiles(w *workspace.Workspace, store vcs.Store, headTree vcs.Hash, session string) ([]FileDiff, error) {
	view := vcs.NewHashOnly(store)
	snap, _, err := w.PendingCheckpoint(context.Background(), view, session)
	if err != nil {
		return nil, err
	}
	changes, err := vcs.DiffTrees(view, headTree, snap.Tree)
	if err != nil {
		return nil, err
	}
	tracked, err := trackedPaths(w)
	if err != nil {
		return nil, err
	}
	onDisk := func(p string) bool {
		_, err := os.Lstat(filepath.Join(w.Root, filepath.FromSlash(p)))
		return err == nil
	}
	// DiffTrees pairs an identical deleted and added file as a rename;
	// git status pairs only what the index holds, so a rename to an
	// untracked path is the deletion and the untracked file again.
	var kept []vcs.Change
	for _, c := range changes {
		if c.Status == vcs.Renamed && !tracked[c.Path] {
			kept = append(kept, vcs.Change{Path: c.From, Status: vcs.Deleted, OldID: c.OldID, OldMode: c.OldMode})
			c.Status, c.From, c.OldID, c.OldMode = vcs.Added, "", vcs.ZeroHash, 0
		}
		kept = append(kept, c)
	}
	disk := &worktreeBlobs{Store: view, root: w.Root, paths: map[vcs.Hash]worktreeFile{}}
	var listed, untracked []vcs.Change
	for _, c := range kept {
		switch {
		case c.Status == vcs.Deleted && onDisk(c.Path):
			// Left out of the snapshot (a secret, a file over the size
			// limit, a snapshot.excludes pattern), not deleted.
			continue
		case c.Status == vcs.Added && !tracked[c.Path]:
			untracked = append(untracked, c)
		default:
			listed = append(listed, c)
		}
		if !c.NewID.IsZero() {
			disk.paths[c.NewID] = worktreeFile{c.Path, c.NewMode}
		}
	}
	// Renames are looked for among what git tracks, as git status does.
	listed = detectRenames(disk, listed)
	// Tracked changes first, then the untracked files, as git status
	// lists them.
	files := make([]FileDiff, 0, len(listed)+len(untracked))
	for i, c := range append(listed, untracked...) {
		f := FileDiff{Path: c.Path, Status: c.Status, From: c.From, src: &patchSource{disk, c}}
		if i >= len(listed) {
			f.Status = StatusUntracked
		}
		if err := countLines(disk, c, &f); err != nil {
			// Gone or replaced since it was hashed: listed, not counted.
			f.Lines, f.Added, f.Removed = "", 0, 0
		}
		files = append(files, f)
	}
	return files, nil
}

// trackedPaths are the workspace-relative paths git's index holds.
func trackedPaths(w *workspace.Workspace) (map[string]bool, error) {
	paths, err := vcs.IndexPaths(filepath.Join(w.Repo.GitDir, "index"))
	if err != nil {
		return nil, err
	}
	prefix := ""
	if rel, err := filepath.Rel(w.Repo.WorkTree, w.Root); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		prefix = filepath.ToSlash(rel) + "/"
	}
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			out[rest] = true
		}
	}
	return out, nil
}

type worktreeFile struct {
	path string
	mode uint32
}

// worktreeBlobs reads a blob the hash-only view dropped from the file it
// was hashed from: the working tree is the only place it is.
type worktreeBlobs struct {
	vcs.Store
	root  string
	paths map[vcs.Hash]worktreeFile
}

func (s *worktreeBlobs) ReadObject(h vcs.Hash) (vcs.ObjectType, []byte, error) {
	t, data, err := s.Store.ReadObject(h)
	f, ok := s.paths[h]
	if err == nil || !ok || !errors.Is(err, vcs.ErrObjectNotFound) {
		return t, data, err
	}
	name := filepath.Join(s.root, filepath.FromSlash(f.path))
	if f.mode == vcs.ModeSymlink {
		target, lerr := os.Readlink(name)
		if lerr != nil {
			return t, data, err
		}
		data = []byte(filepath.ToSlash(target))
	} else if data, err = regfile.ReadFile(name, maxWorktreeRead); err != nil {
		return 0, nil, err
	}
	// A file changed since it was hashed is counted as it is now.
	return vcs.BlobObject, data, nil
}

// maxWorktreeRead bounds a file read back for its lines; the snapshot's
// own size limit usually keeps such files out before.
const maxWorktreeRead = 1 << 30
