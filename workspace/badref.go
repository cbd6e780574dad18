package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// QuarantinePrefix is where `doctor --fix` moves a session ref whose head
// is not a readable commit (SPEC §7.5): out of every listing, kept for
// whoever wants to restore the objects and move it back.
const QuarantinePrefix = spec.RefPrefix + "quarantine/"

// BadSession is a session ref whose head is missing, unreadable or not a
// commit (SPEC §7.5). Listings and Newest leave it out, so one broken ref
// never stops the others' hooks, recovery, log or prune; the command
// that met it reports it.
type BadSession struct {
	Session string
	Ref     string
	ID      vcs.Hash
	Err     error
}

func (b BadSession) String() string {
	return fmt.Sprintf("session %s skipped: %s points at %s, which does not read as a checkpoint commit (%v); ctxgit doctor --fix moves it under %s",
		b.Session, b.Ref, b.ID.Short(), b.Err, QuarantinePrefix)
}

// BadSessions are the broken session refs this workspace's listings met
// and skipped, sorted by session.
func (w *Workspace) BadSessions() []BadSession {
	out := make([]BadSession, 0, len(w.badSessions))
	for _, b := range w.badSessions {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session < out[j].Session })
	return out
}

// StoreNotices are what a hook logs of the store and the state files
// this call met: each session ref skipped, each lost head a checkpoint
// restarted a chain from (once: the next checkpoint has a good head), and
// each state file the file rule refused (SPEC §3.4), once.
func (w *Workspace) StoreNotices() []string {
	var out []string
	for _, b := range w.BadSessions() {
		out = append(out, b.String())
	}
	out = append(out, w.lostNotes...)
	return append(out, w.refusals...)
}

// LostHeadNote is the line that says a checkpoint began a new chain;
// session as a person reads it (Workspace.ShortSession).
func LostHeadNote(session string, lost vcs.Hash, cpID string) string {
	return fmt.Sprintf("session %s: its head %s did not read as a checkpoint commit; %s starts a new chain and records it (%s)",
		session, lost.Short(), cpID, lostHeadTrailer)
}

// noteBadSession records a skipped session ref, once.
func noteBadSession(w *Workspace, b BadSession) {
	if w.badSessions == nil {
		w.badSessions = map[string]BadSession{}
	}
	w.badSessions[b.Session] = b
}

// goodHead checks a session ref's head reads as a checkpoint; one that
// does not is noted and reported false.
func goodHead(w *Workspace, store vcs.Store, key string, ref vcs.Ref) bool {
	if err := HeadStored(store, ref.ID); err != nil {
		noteBadSession(w, BadSession{Session: key, Ref: ref.Name, ID: ref.ID, Err: err})
		return false
	}
	return true
}

// HeadStored checks that a head commit reads and that the checkpoint
// record in its tree is stored. A git gc --prune=now that struck after
// a checkpoint's own check can take the record and leave the commit
// (docs/design.md, "Checkpoints beside git gc"): such a head is as lost
// as a missing commit. It costs the commit, two small trees and a
// lookup, not the record's parse.
func HeadStored(store vcs.Store, id vcs.Hash) error {
	c, err := vcs.ReadCommit(store, id)
	if err != nil {
		return err
	}
	e, err := vcs.Lookup(store, c.Tree, spec.CheckpointYAMLPath)
	if err != nil {
		return err
	}
	if ok, err := store.HasObject(e.ID); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%s: object %s: %w", spec.CheckpointYAMLPath, e.ID.Short(), vcs.ErrObjectNotFound)
	}
	return nil
}

// QuarantineRef moves a session ref whose head does not read as a commit
// to the same name under refs/ctxgit/quarantine/ (SPEC §7.5), by
// compare-and-swap: created there at id, then removed from its place only
// if it still holds id. Moving it back is `git update-ref` of the old
// name, once its objects are restored.
func QuarantineRef(store vcs.Store, name string, id vcs.Hash) (string, error) {
	rest, ok := strings.CutPrefix(name, spec.RefPrefix)
	if !ok || strings.HasPrefix(name, QuarantinePrefix) {
		return "", fmt.Errorf("%s: not a ref ctxgit quarantines", name)
	}
	to := QuarantinePrefix + rest
	if err := store.UpdateRef(to, id, vcs.ZeroHash); err != nil {
		return "", err
	}
	if err := store.DeleteRef(name, id); err != nil {
		// Leave the ref where it was: the copy in quarantine is the
		// same id, and the next --fix finds the ref again.
		store.DeleteRef(to, id)
		return "", err
	}
	return to, nil
}

// lostHeadTrailer names, in the first commit of a new chain, the head the
// session's ref held when that did not read as a commit (SPEC §7.2, §7.5).
const lostHeadTrailer = "Ctxgit-Lost-Head"

// lostHead sorts the error of reading a session's head: a ref whose
// object is missing, unreadable or not a commit, or whose commit's
// checkpoint record is not stored, gives its id (the chain restarts from
// nothing) and no error; any other error is returned.
func lostHead(store vcs.Store, ref string, headErr error) (vcs.Hash, error) {
	if headErr == nil {
		return vcs.ZeroHash, nil
	}
	id, err := store.ReadRef(ref)
	if err != nil {
		return vcs.ZeroHash, headErr // the ref itself is bad: refused as before
	}
	if err := HeadStored(store, id); err == nil {
		return vcs.ZeroHash, headErr // stored, but its record does not parse
	}
	return id, nil
}

// pruneRaced checks, once the ref has moved, that the checkpoint still
// reads as a head does (HeadStored: its commit, the trees down to its
// record, the record). Until the ref moved they were unreachable, and `git
// gc --prune=now` run beside the checkpoint removes unreachable objects
// whatever their age (docs/design.md, "Checkpoints beside git gc"). If any
// went, the ref is put back by compare-and-swap, so the session keeps its
// history, and the checkpoint is reported as not taken: the prune costs
// that one checkpoint, never the session.
func pruneRaced(store vcs.Store, ref string, commitID, prevID vcs.Hash) error {
	if HeadStored(store, commitID) == nil {
		return nil
	}
	return putBack(store, ref, commitID, prevID)
}

// putBack returns a raced checkpoint's ref to where it was and reports
// the checkpoint as not taken.
func putBack(store vcs.Store, ref string, commitID, prevID vcs.Hash) error {
	if prevID.IsZero() {
		store.DeleteRef(ref, commitID)
	} else {
		store.UpdateRef(ref, prevID, commitID)
	}
	return spec.Conflict("checkpoint %s was not taken: a concurrent git gc --prune=now removed its objects before its ref moved; the session keeps its previous checkpoint (take it again)", commitID.Short())
}
