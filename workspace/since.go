package workspace

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/vcs"
)

// Branch is the branch the repository's HEAD names ("" when detached or
// outside git).
func Branch(w *Workspace) string {
	if w.Repo == nil {
		return ""
	}
	return vcs.HeadBranch(w.Repo.GitDir)
}

// ChangedSince lists the workspace's files that a checkpoint taken now
// would record differently from head; ctxgit's own files (.ctxgit/, the
// state files, its outputs) are left out: their news is the plan, the
// logs and the next action. It
// plans on a store that writes nothing (vcs.HashOnly), so it only reads.
func ChangedSince(w *Workspace, ctx context.Context, head *Resolved) ([]string, error) {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		return nil, err
	}
	view := vcs.NewHashOnly(store)
	_, tree, err := w.PendingCheckpoint(ctx, view, head.Session)
	if err != nil {
		return nil, err
	}
	c, err := vcs.ReadCommit(store, head.Commit)
	if err != nil {
		return nil, err
	}
	changes, err := vcs.DiffTrees(view, c.Tree, tree)
	if err != nil {
		return nil, err
	}
	p := w.Config.Paths
	own := map[string]bool{}
	for _, f := range []string{p.Plan, p.FailureLog, p.FailureLogFallback, p.Decisions, p.TaskState, p.SelfModel, p.EnvModel} {
		own[filepath.ToSlash(filepath.Clean(f))] = true
	}
	paths := []string{}
	for _, ch := range changes {
		if !isOutputPath(ch.Path) && !own[ch.Path] && !strings.HasPrefix(ch.Path, ".ctxgit/") {
			paths = append(paths, ch.Path)
		}
	}
	return paths, nil
}
