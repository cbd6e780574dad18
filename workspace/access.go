package workspace

import (
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// This file is the read access the feature packages (review, and those
// that follow it out of workspace per ARCHITECTURE.md) have to the
// workspace's history: small exported doors onto internals that stay
// unexported, so a feature reads checkpoints as the core does without
// reaching into the core's state.

// ReadStore opens the checkpoint store for reading, through the vcs.Store
// interface: nil (and no error), with nothing created, when a workspace
// outside git has no private store yet.
func (w *Workspace) ReadStore() (vcs.Store, error) {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		// An untyped nil: a nil *GitStore in the interface would not
		// compare equal to nil.
		return nil, err
	}
	return store, nil
}

// ReadCheckpointAt reads the checkpoint YAML stored in checkpoint commit
// id.
func ReadCheckpointAt(store vcs.Store, id vcs.Hash) (*spec.Checkpoint, error) {
	return readCheckpointAt(store, id)
}

// IsCheckpointOutput reports whether path (slash-separated, relative to
// the workspace root) is a file a checkpoint writes itself, such as its
// checkpoint YAML or the recovery file: not the user's work.
func IsCheckpointOutput(path string) bool { return isOutputPath(path) }
