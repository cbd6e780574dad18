package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

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
	so.Previous = previousTree(w, store, session)
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
	return readHead(store, w.SessionRef(session))
}

// RemoveStrayTemps removes the temporary files killed ctxgit processes
// left in the workspace-relative directories dirs, returning how many
// went (SPEC §3.3).
func (w *Workspace) RemoveStrayTemps(dirs []string) int {
	n, _ := removeStrayTemps(w.Root, strayTemps(w.Root, dirs))
	return n
}

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

// What retention (prune and doctor) needs of the core. Doctor reads what
// only a store on disk offers (ref locks, bad packs, loose-object counts,
// temporary files), through vcs.DiskStore; prune and doctor repack
// through it too.

// DiskStore opens the checkpoint store with its upkeep (vcs.DiskStore):
// nil (and no error), with nothing created, when there is none yet.
func (w *Workspace) DiskStore() (vcs.DiskStore, error) {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		// An untyped nil: a nil *GitStore in the interface would not
		// compare equal to nil.
		return nil, err
	}
	return store, nil
}

// FetchStore opens the checkpoint store a fetch writes into, creating a
// private one if there is none yet.
func (w *Workspace) FetchStore() (vcs.FetchStore, error) {
	store, err := w.Store()
	if err != nil {
		return nil, err
	}
	return store, nil
}

// EntryOf is the history entry of checkpoint commit c with id id.
func EntryOf(id vcs.Hash, c *vcs.Commit) Entry { return entryOf(id, c) }

// WorkspaceLock is who holds the workspace lock (SPEC §13), as doctor
// reports it.
type WorkspaceLock struct {
	PID     int // 0 when the content is unreadable
	Host    string
	Started time.Time
	// Stale is true when a waiting process would take the lock over.
	Stale bool
	path  string
	raw   []byte
}

// HeldLock reads the workspace lock; nil when none is held.
func (w *Workspace) HeldLock() *WorkspaceLock {
	path := w.LocalPath("lock")
	holder, raw := readHolder(path)
	if raw == nil {
		return nil
	}
	host, _ := os.Hostname()
	return &WorkspaceLock{PID: holder.PID, Host: holder.Host, Started: holder.Started,
		Stale: isStale(holder, path, host, time.Duration(w.Config.Lock.StaleAfter)), path: path, raw: raw}
}

// Remove removes a stale lock under the rules a waiting process uses: only
// if it still holds what was read. It reports whether the lock went.
func (l *WorkspaceLock) Remove() bool { return takeOver(l.path, l.raw) }

// StrayTemps are the temporary files killed ctxgit writes left in the
// workspace (SPEC §3.3).
type StrayTemps struct {
	root  string
	found []strayTemp
}

// FindStrayTemps looks for them anywhere in the workspace but inside .git
// directories, nested repositories and the private store.
func (w *Workspace) FindStrayTemps() StrayTemps {
	return StrayTemps{w.Root, strayTemps(w.Root, nil)}
}

// Len is how many were found.
func (s StrayTemps) Len() int { return len(s.found) }

// Size is their total size in bytes.
func (s StrayTemps) Size() int64 {
	var n int64
	for _, t := range s.found {
		n += t.size
	}
	return n
}

// Paths are their workspace-relative paths, slash-separated.
func (s StrayTemps) Paths() []string {
	out := make([]string, len(s.found))
	for i, t := range s.found {
		out[i] = t.rel
	}
	return out
}

// Remove removes what FindStrayTemps found, returning how many went and
// their size.
func (s StrayTemps) Remove() (int, int64) { return removeStrayTemps(s.root, s.found) }

// OpenForDoctor opens the workspace at root like Open, but a config file
// that does not parse is returned as configErr beside a workspace on the
// default config, so the other checks still run.
func OpenForDoctor(env Env, root string) (w *Workspace, configErr error, err error) {
	w, err = Open(env, root)
	if err == nil {
		return w, nil, nil
	}
	var fe *spec.FileError
	if !errors.As(err, &fe) || fe.Path != spec.ConfigPath {
		return nil, nil, err
	}
	if r, rerr := filepath.EvalSymlinks(root); rerr == nil {
		root = r
	}
	w = &Workspace{Root: root, Env: env, Config: spec.DefaultConfig()}
	if fi, serr := os.Stat(w.Path(spec.DirName)); serr == nil && fi.IsDir() {
		w.Initialized = true
	}
	if ferr := w.findRepo(); ferr != nil {
		return nil, nil, ferr
	}
	return w, err, nil
}

// ContextErr is ctx.Err() for an optional context, as the feature
// packages take theirs: a nil one is never done.
func ContextErr(ctx context.Context) error { return ctxErr(ctx) }

// UnwrapPathError drops the absolute path from an os error, for a message
// that already names the workspace-relative file.
func UnwrapPathError(err error) error { return unwrapPathError(err) }

// What the task-state contract (package taskstate) needs of the core
// beside the calls above: reading a state file it is about to edit
// under the same bound ReadState uses.

// MaxStateFile bounds what ctxgit reads of one state file.
const MaxStateFile = maxStateFile
