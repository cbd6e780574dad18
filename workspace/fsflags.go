package workspace

import (
	"path"
	"path/filepath"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/ignore"
)

// fsFlags is what the workspace's file system cannot do (SPEC §9.7):
// core.ignoreCase, core.fileMode and core.symlinks from the repository's
// config, as git reads them; outside git, found by trying, as git init
// does, in .ctxgit/local/ (or .ctxgit/). When neither answers, a Linux
// file system.
func (w *Workspace) fsFlags() vcs.FSFlags {
	if w.Repo != nil {
		if f, err := vcs.ReadFSFlags(w.Repo.CommonDir); err == nil {
			return f
		}
		return vcs.FSFlags{}
	}
	// .ctxgit/local/ exists once a command has written; a dry run may
	// come first, and then .ctxgit/ is on the same file system.
	local := w.LocalPath("")
	for _, dir := range []string{local, filepath.Dir(local)} {
		if f, err := vcs.ProbeFSFlags(dir); err == nil {
			return f
		}
	}
	return vcs.FSFlags{}
}

// previousTree is the tree of a session's last checkpoint, zero if none.
func (w *Workspace) previousTree(store vcs.Store, session string) vcs.Hash {
	id, err := store.ReadRef(w.SessionRef(session))
	if err != nil {
		return vcs.ZeroHash
	}
	c, err := vcs.ReadCommit(store, id)
	if err != nil {
		return vcs.ZeroHash
	}
	return c.Tree
}

// checkCaseClash refuses a restore, on a file system that folds case, of
// a checkpoint holding two paths that differ only in case (made where
// case matters): one would overwrite the other. Paths skip leaves out
// do not count.
func checkCaseClash(s vcs.Store, tree vcs.Hash, dir string, skip func(string) bool, label string) error {
	entries, err := vcs.ReadTree(s, tree)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, e := range entries {
		p := path.Join(dir, e.Name)
		if skip(p) && !e.IsDir() {
			continue
		}
		folded := ignore.FoldPath(e.Name)
		if other, ok := seen[folded]; ok && !(skip(p) && skip(other)) {
			return spec.Conflict("checkpoint %s holds %s and %s, which differ only in case, and this file system does not tell them apart (core.ignorecase): nothing was restored",
				label, other, p)
		}
		seen[folded] = p
		if e.IsDir() {
			if err := checkCaseClash(s, e.ID, p, skip, label); err != nil {
				return err
			}
		}
	}
	return nil
}

// restoreAsFile says how a tree entry is written on this file system: a
// symlink where there are none (core.symlinks=false) becomes a plain file
// holding its target, as git checks it out.
func restoreAsFile(flags vcs.FSFlags, mode uint32) bool {
	return mode == vcs.ModeSymlink && flags.NoSymlinks
}
