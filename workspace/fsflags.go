package workspace

import (
	"path/filepath"

	"github.com/ctxgit/ctxgit/vcs"
)

// FSFlags is what the workspace's file system cannot do (SPEC §9.7):
// core.ignoreCase, core.fileMode and core.symlinks from the repository's
// config, as git reads them; outside git, found by trying, as git init
// does, in .ctxgit/local/ (or .ctxgit/). When neither answers, what this
// system's file systems can be assumed to do (vcs.SystemFSFlags).
func (w *Workspace) FSFlags() vcs.FSFlags {
	if w.Repo != nil {
		if f, err := vcs.ReadFSFlags(w.Repo.CommonDir); err == nil {
			return f
		}
		return vcs.SystemFSFlags()
	}
	// .ctxgit/local/ exists once a command has written; a dry run may
	// come first, and then .ctxgit/ is on the same file system.
	local := w.LocalPath("")
	for _, dir := range []string{local, filepath.Dir(local)} {
		if f, err := vcs.ProbeFSFlags(dir); err == nil {
			return f
		}
	}
	return vcs.SystemFSFlags()
}

// previousTree is the tree of a session's last checkpoint, zero if none.
func previousTree(w *Workspace, store vcs.Store, session string) vcs.Hash {
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
