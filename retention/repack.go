package retention

import (
	"context"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// repack packs the store under the workspace lock, as prune does after
// pruning (SPEC §14.4). It returns nil when there is no store.
// ctx, when not nil, ends a wait for the lock and interrupts the repack
// before it publishes anything.
func repack(ctx context.Context, w *workspace.Workspace) (*vcs.RepackResult, error) {
	lock, err := w.LockContext(ctx)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	return repackLocked(ctx, w)
}

// repackLocked is repack for a caller that already holds the workspace
// lock; ctx, when not nil, interrupts it before anything is deleted.
func repackLocked(ctx context.Context, w *workspace.Workspace) (*vcs.RepackResult, error) {
	store, err := w.DiskStore()
	if err != nil || store == nil {
		return nil, err
	}
	return repackStore(ctx, w, store)
}

// repackStore gives the space back (SPEC §14.4): the private store is
// repacked whole; in a repository ctxgit only packs the loose objects its
// refs reach and leaves the rest to git's gc.
func repackStore(ctx context.Context, w *workspace.Workspace, store vcs.Repacker) (*vcs.RepackResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if w.Repo == nil {
		return store.Repack(ctx, vcs.RepackAll, nil)
	}
	refs, err := store.ListRefs(spec.RefPrefix)
	if err != nil {
		return nil, err
	}
	roots := make([]vcs.Hash, 0, len(refs))
	for _, r := range refs {
		// A ref at a missing object (SPEC §7.5) reaches nothing to pack.
		if ok, err := store.HasObject(r.ID); err == nil && ok {
			roots = append(roots, r.ID)
		}
	}
	return store.Repack(ctx, vcs.RepackLoose, roots)
}
