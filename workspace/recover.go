package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
)

// RecoverOptions select and shape a recovery.
type RecoverOptions struct {
	Session string
	// SessionGiven is true when the caller named the session; otherwise a
	// session with no checkpoints falls back to the workspace's newest.
	SessionGiven bool
	Name         string        // an explicit checkpoint; its age is not checked
	Budget       int           // characters; 0 means the config's
	MaxAge       time.Duration // 0 means the config's
	Peek         bool          // show without marking recovered
	Force        bool          // show even if already recovered
	Write        bool          // also write CONTEXT_RECOVERY.md
	Status       string        // a STATUS: line to include
	// Title replaces the block's heading when it is injected for anything
	// but a compaction (a resume, a previous session); see StartupTitle.
	Title string
	// NotStaleAgainst refuses an automatic injection whose checkpoint is
	// older than the state files on disk (a plan edited since): the block
	// would contradict what the agent reads next.
	NotStaleAgainst bool
	// Emit delivers the block (prints it) before the checkpoint is marked
	// recovered; if it fails, nothing is marked and the block stays due.
	Emit func(*RecoverResult) error
}

// RecoverResult says what recovery did. Block is "" when nothing is to be
// injected, and Note then says why.
type RecoverResult struct {
	Resolved *Resolved
	Block    string
	Note     string
	Age      time.Duration
	Marked   bool
	Wrote    string
}

// Recover renders the recovery block of the right checkpoint, once (SPEC
// §10.3): it marks the checkpoint recovered so automatic injection never
// replays it, and renames .context-checkpoint.md to
// .context-checkpoint.recovered.md.
func (w *Workspace) Recover(o RecoverOptions) (*RecoverResult, error) {
	if o.Session == "" {
		o.Session = spec.DefaultSession
	}
	if o.Budget == 0 {
		o.Budget = w.Config.BudgetChars()
	}
	if o.Budget < spec.MinBudgetChars {
		return nil, spec.Usage("--budget %d is too small: at least %d characters", o.Budget, spec.MinBudgetChars)
	}
	if o.MaxAge < 0 {
		return nil, spec.Usage("--max-age must not be negative")
	}
	if o.MaxAge == 0 {
		o.MaxAge = time.Duration(w.Config.Recovery.MaxAge)
	}
	// Nothing to recover: answer without writing anything (not even the
	// lock), so a recovery hook run anywhere leaves no trace.
	if sessions, err := w.Sessions(); err != nil {
		return nil, err
	} else if len(sessions) == 0 {
		switch {
		case o.Name != "":
			return nil, spec.NotFound("no checkpoint %s: the workspace has no checkpoints", o.Name)
		case o.SessionGiven:
			return nil, noCheckpoints(o.Session)
		}
		return &RecoverResult{Note: "no checkpoint to recover"}, nil
	}
	var lock *Lock
	if !o.Peek {
		// Check and mark under the lock: parallel hooks inject once.
		var err error
		if lock, err = w.Lock(); err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	r, err := w.pickRecovery(o)
	if err != nil || r == nil {
		if err == nil {
			return &RecoverResult{Note: "no checkpoint to recover"}, nil
		}
		return nil, err
	}
	res := &RecoverResult{Resolved: r, Age: w.Env.Now().Sub(r.Checkpoint.Meta.CreatedAt)}
	short := w.ShortSession(r.Session) // lists the sessions: once
	name := short + ":" + r.Checkpoint.Meta.CheckpointID
	if !r.Explicit {
		switch {
		case res.Age < -time.Minute:
			res.Note = fmt.Sprintf("checkpoint %s is dated %s, in the future: not injected automatically (name it to show it)", name, r.Checkpoint.Meta.CreatedAt.Format(time.RFC3339))
			return res, nil
		case res.Age > o.MaxAge:
			res.Note = fmt.Sprintf("newest checkpoint %s is %s old, past the %s freshness window: not injected (run `ctxgit recover %s` to show it)",
				name, res.Age.Round(time.Second), o.MaxAge, name)
			return res, nil
		}
	}
	if !r.Explicit && r.Checkpoint.Meta.Trigger == spec.TriggerRestore {
		// A safety checkpoint holds the workspace before a restore
		// changed it: a block from it would list restored files as
		// deleted (issue 22).
		res.Note = fmt.Sprintf("checkpoint %s was taken before a restore: not injected automatically (run `ctxgit recover %s` to show it)", name, name)
		return res, nil
	}
	if !r.Explicit && o.NotStaleAgainst {
		if f := w.stateNewerThan(r.Checkpoint.Meta.CreatedAt); f != "" {
			res.Note = fmt.Sprintf("checkpoint %s is older than %s on disk: not injected automatically (run `ctxgit recover %s` to show it)", name, f, name)
			return res, nil
		}
	}
	// Replay prevention is for automatic injection: a checkpoint asked for
	// by name is always shown.
	if !o.Force && !o.Peek && !r.Explicit && w.wasRecovered(r) {
		res.Note = fmt.Sprintf("checkpoint %s was already recovered: not shown again (--force shows it)", name)
		return res, nil
	}
	res.Block = RenderRecovery(r.Checkpoint, RenderOptions{
		Budget: o.Budget, ChangedFiles: w.Config.Recovery.ChangedFiles,
		CompactionWarn: w.Config.Recovery.CompactionWarn, Status: o.Status, FullName: name, Title: o.Title, Session: short,
		StateFiles: w.StateFiles(),
	})
	if o.Write {
		if err := w.Publish(w.Path(spec.RecoveryFile), []byte(res.Block), 0o644); err != nil {
			return nil, &spec.FileError{Path: spec.RecoveryFile, Err: unwrapPathError(err)}
		}
		res.Wrote = spec.RecoveryFile
	}
	if o.Emit != nil {
		if err := o.Emit(res); err != nil {
			return nil, err
		}
	}
	if !o.Peek {
		if err := w.markRecovered(r); err != nil {
			return nil, err
		}
		res.Marked = true
		if err := w.retireContextCheckpoint(r, short); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// retireContextCheckpoint renames .context-checkpoint.md to
// .context-checkpoint.recovered.md if it is the checkpoint just recovered
// (another session's newer one stays for its own recovery); short is
// the session's short id now.
func (w *Workspace) retireContextCheckpoint(r *Resolved, short string) error {
	// ctxgit's own output, never a link or a FIFO when ctxgit wrote it:
	// anything else in its place is not this checkpoint's, and stays.
	data, err := regfile.ReadFile(w.Path(spec.ContextCheckpoint), maxStateFile)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
		return nil
	}
	if err != nil {
		return &spec.FileError{Path: spec.ContextCheckpoint, Err: unwrapPathError(err)}
	}
	// The file names the session by the short id it had when written,
	// which a later session sharing its first characters lengthens.
	if !strings.Contains(string(data), checkpointLine(r.Checkpoint, short)) &&
		!strings.Contains(string(data), checkpointLine(r.Checkpoint, r.Session)) &&
		!strings.Contains(string(data), checkpointLine(r.Checkpoint, shortPrefix(r.Session))) {
		return nil
	}
	if err := os.Rename(w.Path(spec.ContextCheckpoint), w.Path(spec.ContextRecovered)); err != nil {
		return &spec.FileError{Path: spec.ContextCheckpoint, Err: unwrapPathError(err)}
	}
	return nil
}

// shortPrefix is a session key's shortest short id (spec.ShortSessionLen).
func shortPrefix(key string) string {
	if len(key) > spec.ShortSessionLen {
		return key[:spec.ShortSessionLen]
	}
	return key
}

func (w *Workspace) pickRecovery(o RecoverOptions) (*Resolved, error) {
	if o.Name != "" {
		return w.Resolve(o.Name, o.Session)
	}
	r, err := w.Resolve("", o.Session)
	if errors.Is(err, spec.ErrNotFound) && !o.SessionGiven {
		return w.Newest()
	}
	return r, err
}

// RecoveredPath holds the commit ids of a session's recovered checkpoints.
func (w *Workspace) RecoveredPath(session string) string {
	return w.LocalPath("recovered/" + session)
}

// maxRecoveredFile bounds the replay marker's read: maxRecoveredIDs ids
// of at most 64 hex digits, a line each.
const maxRecoveredFile = 8 << 10

func (w *Workspace) wasRecovered(r *Resolved) bool {
	data, err := ReadLocal(w.Root, w.RecoveredPath(r.Session), maxRecoveredFile)
	if err != nil {
		return false
	}
	return strings.Contains(string(data), r.Commit.String())
}

// maxRecoveredIDs bounds the replay marker: only recent checkpoints can be
// candidates for automatic injection anyway.
const maxRecoveredIDs = 64

func (w *Workspace) markRecovered(r *Resolved) error {
	path := w.RecoveredPath(r.Session)
	if err := localDirs(w.Root, path, true); err != nil {
		return err
	}
	data, _ := ReadLocal(w.Root, path, maxRecoveredFile)
	var ids []string
	for _, id := range strings.Fields(string(data)) {
		if id != r.Commit.String() {
			ids = append(ids, id)
		}
	}
	ids = append(ids, r.Commit.String())
	if len(ids) > maxRecoveredIDs {
		ids = ids[len(ids)-maxRecoveredIDs:]
	}
	return w.Publish(path, []byte(strings.Join(ids, "\n")+"\n"), 0o644)
}

// stateNewerThan names a state file (plan, decisions, failure log, task
// state) changed on disk after t, or returns "". A second of slack covers
// filesystems with coarse timestamps.
func (w *Workspace) stateNewerThan(t time.Time) string {
	p := w.Config.Paths
	for _, rel := range []string{p.Plan, p.Decisions, p.FailureLog, p.TaskState} {
		if rel == "" {
			continue
		}
		fi, err := w.StatStateFile(rel)
		if err == nil && fi.ModTime().After(t.Add(time.Second)) {
			return rel
		}
	}
	return ""
}

// ResumedTitle and PreviousTitle head a block injected at a session's
// start rather than after a compaction (docs/cli.md#hook): never
// "Post-Compaction" when no compaction happened.
func ResumedTitle(session string) string { return "# Resumed: session " + session }

// PreviousTitle names the session a fresh checkpoint came from and when it
// was taken.
func PreviousTitle(session string, ended time.Time) string {
	return "# Previous session " + session + " (ended " + ended.UTC().Format("2006-01-02 15:04 UTC") + ")"
}
