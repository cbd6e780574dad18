package workspace

import (
	"context"
	"errors"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// What the feature packages (restore, sharing) need of the workspace core, kept
// to a few calls so the internals they wrap stay unexported.

// PendingCheckpoint is what a checkpoint of session taken now would
// hold: the snapshot, and its tree with the state files laid over it.
// The objects go to s, which may be a view that only hashes them, so a
// caller can compare without storing anything.
func (w *Workspace) PendingCheckpoint(ctx context.Context, s vcs.Store, session string) (*vcs.SnapshotResult, vcs.Hash, error) {
	store, err := w.storeIfAny()
	if err != nil {
		return nil, vcs.ZeroHash, err
	}
	if store == nil {
		return nil, vcs.ZeroHash, errors.New("no checkpoint store yet")
	}
	so := w.snapshotOptions(store)
	so.Previous = w.previousTree(store, session)
	so.Ctx = ctx
	snap, err := vcs.Snapshot(s, so)
	if err != nil {
		return nil, vcs.ZeroHash, err
	}
	tree, err := w.overlayStateFiles(s, snap.Tree, w.ReadState())
	if err != nil {
		return nil, vcs.ZeroHash, err
	}
	return snap, tree, nil
}

// SessionHead reads a session's newest checkpoint from store; a session
// with none yet gives zero values.
func (w *Workspace) SessionHead(store vcs.Store, session string) (vcs.Hash, *spec.Checkpoint, error) {
	return w.head(store, w.SessionRef(session))
}

// FSFlags is what the workspace's file system cannot do (SPEC §9.7).
func (w *Workspace) FSFlags() vcs.FSFlags { return w.fsFlags() }

// CheckHeld fails when the workspace lock this process took is no longer
// its own (SPEC §14); a write checks it just before it publishes. Without
// a held lock it passes.
func (w *Workspace) CheckHeld() error { return w.checkHeld() }

// RemoveStrayTemps removes the temporary files killed ctxgit processes
// left in the workspace-relative directories dirs, returning how many
// went (SPEC §3.3).
func (w *Workspace) RemoveStrayTemps(dirs []string) int {
	n, _ := w.removeStrayTemps(w.strayTemps(dirs))
	return n
}

// SessionsPath is this workspace's session prefix below refs/ctxgit/:
// "sessions/", or "ws/<ns>/sessions/" for a subdirectory's namespace.
func (w *Workspace) SessionsPath() string { return w.sessionsPath() }

// ValidateRemoteName checks a remote's name as the namespace of its
// fetched refs: one ref path component, held to a session key's rules.
func ValidateRemoteName(name string) error { return validateRemoteName(name) }

// CheckpointIDOf reads commit id's Ctxgit-Checkpoint trailer from s (""
// when it cannot be read).
func CheckpointIDOf(s vcs.Store, id vcs.Hash) string {
	c, err := vcs.ReadCommit(s, id)
	if err != nil {
		return ""
	}
	return entryOf(id, c).CheckpointID
}
