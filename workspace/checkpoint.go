package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/ignore"
)

// CheckpointOptions are the inputs of one checkpoint beyond the state
// files. Hooks fill the host-derived parts (usage, thread, resources).
type CheckpointOptions struct {
	Session    string
	Trigger    string
	Message    string
	NextAction string // overrides the derived next action
	Usage      spec.TokenUsage
	Host       string
	AgentID    string
	// CompactionCount, when non-nil, replaces the count carried over from
	// the previous checkpoint.
	CompactionCount *int
	Interrupted     bool
	Status          string // working.status; default in_progress
	LastToolCall    string
	Thread          spec.Thread
	FilesRead       []string
	FilesModified   []string
	// FilesModifiedAt is, for each of FilesModified, when the transcript
	// wrote its newest successful write's result (RFC 3339); "" when it
	// does not say. Missing or shorter: all are taken as unknown.
	FilesModifiedAt []string
	ToolsUsed       []string
	// ToolFailure is the transcript's newest failing tool call; the
	// checkpoint keeps it unless the failure log already has it.
	ToolFailure *spec.ToolFailure
	Task        *spec.TaskState
	Learnings   []string
	// Progress, when not nil, follows the snapshot (for a progress line).
	Progress *vcs.Progress
	// Ctx, when not nil, interrupts the checkpoint (Ctrl-C): once it is
	// done the checkpoint stops before storing its trees or moving the
	// ref, and returns its error.
	Ctx context.Context
}

// CheckpointResult is what a checkpoint did.
type CheckpointResult struct {
	Checkpoint *spec.Checkpoint
	Commit     vcs.Hash
	Ref        string
	Snapshot   *vcs.SnapshotResult
	// Problems are state files that could not be read or parsed; the
	// checkpoint was taken without them.
	Problems []error
	// SecretsReported says the previous checkpoint of the session left
	// out the same secret files per pattern: the warnings were given
	// then, and a hook's every checkpoint need not repeat them.
	SecretsReported bool
	// LostHead is the session's old head when it did not read as a
	// commit: this checkpoint began a new chain that records it (SPEC
	// §7.5). Zero otherwise.
	LostHead vcs.Hash
	// ChangesUnlisted says the previous checkpoint's snapshot is
	// missing objects, so the files changed since it are not listed
	// (Problems says why; docs/design.md, "Checkpoints beside git gc").
	ChangesUnlisted bool
	// Unchanged says nothing changed since the session's newest
	// checkpoint (SPEC §8.7): no commit was written, and Checkpoint and
	// Commit are that head's.
	Unchanged bool
	// Packed is what the incremental pack of loose checkpoint objects
	// did after this checkpoint (SPEC §14.4), nil when none was due.
	Packed *vcs.RepackResult
}

// outputPaths are the files a checkpoint writes itself; the walk leaves
// them out (they are added to the tree afterwards) and diffs ignore them.
var outputPaths = []string{spec.CheckpointYAMLPath, spec.ContextCheckpoint, spec.ContextRecovered, spec.RecoveryFile}

// fixedExcludes are never snapshotted (SPEC §9.3).
func fixedExcludes() []string {
	// ctxgit's temporary files, left by a kill between create and rename,
	// anywhere in the tree (SPEC §9.3).
	ex := []string{"/" + spec.LocalDir + "/", "/" + spec.PrivateStoreDir + "/", atomicfile.TempPrefix + "*"}
	for _, p := range outputPaths {
		ex = append(ex, "/"+p)
	}
	return ex
}

// Checkpoint takes a checkpoint (SPEC §8) under the workspace lock.
func (w *Workspace) Checkpoint(opts CheckpointOptions) (*CheckpointResult, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	lock, err := w.LockContext(opts.Ctx)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	return w.CheckpointHeld(opts)
}

// normalize fills the defaults and refuses what no checkpoint may hold.
func (o *CheckpointOptions) normalize() error {
	if o.Session == "" {
		o.Session = spec.DefaultSession
	}
	if err := spec.ValidateSessionKey(o.Session); err != nil {
		return err
	}
	if o.Trigger == "" {
		o.Trigger = spec.TriggerManual
	}
	if !spec.TriggerRE().MatchString(o.Trigger) {
		return spec.Usage("trigger %q: use lowercase letters, digits and '-'", o.Trigger)
	}
	if err := spec.CheckArg("--message", o.Message); err != nil {
		return err
	}
	return spec.CheckArg("--next", o.NextAction)
}

// CheckpointHeld is Checkpoint for a caller that already holds the
// workspace lock.
func (w *Workspace) CheckpointHeld(opts CheckpointOptions) (*CheckpointResult, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	store, err := w.Store()
	if err != nil {
		return nil, err
	}
	// Only holders of the workspace lock write this workspace's session
	// refs: a lock file on one that outlasts the wait is a killed
	// checkpoint's, taken over (SPEC §13).
	store.OwnRefLocks(spec.SessionRefsPrefix(w.Namespace))
	defer store.OwnRefLocks("")
	if w.Repo != nil {
		if err := w.ensureInfoExclude(); err != nil {
			return nil, err
		}
	}
	st := w.ReadState()
	if opts.Task == nil {
		// The durable task state rides along in every checkpoint, so
		// recover and diff see phase and next_action (SPEC §12.1).
		if task, err := w.ReadTaskState(); err != nil {
			st.Problems = append(st.Problems, err)
		} else if task.Exists {
			opts.Task = task.State
		}
	}
	ref := w.SessionRef(opts.Session)
	prevID, prev, err := readHead(store, ref)
	// A head that does not read as a commit (pruned by a concurrent
	// git gc --prune=now, say) would fail this session forever: start a
	// new chain that records it instead (SPEC §7.5).
	lost, err := lostHead(store, ref, err)
	if err != nil {
		return nil, err
	}
	if !lost.IsZero() {
		// The stat cache may be anchored at the lost head, whose commit
		// can outlive subtrees the prune took: it would reuse them unseen.
		os.Remove(w.LocalPath("statcache"))
	}

	pending, err := vcs.NewPending(store)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			pending.Abort()
		}
	}()
	so := w.snapshotOptions(store)
	so.Progress = opts.Progress
	so.Previous = previousTree(w, store, opts.Session)
	so.Ctx = opts.Ctx
	snap, err := vcs.Snapshot(pending, so)
	if err != nil {
		return nil, err
	}
	tree, err := w.overlayStateFiles(pending, snap.Tree, st)
	if err != nil {
		return nil, err
	}

	cp := w.buildCheckpoint(opts, st, prev, snap)
	unlisted := false
	if prev != nil {
		prevCommit, err := vcs.ReadCommit(store, prevID)
		if err != nil {
			return nil, fmt.Errorf("reading previous checkpoint: %w", err)
		}
		changes, err := diffWorkspace(pending, prevCommit.Tree, tree)
		if errors.Is(err, vcs.ErrObjectNotFound) {
			// The head's record reads but a tree of its workspace was
			// pruned (docs/design.md, "Checkpoints beside git gc"): the
			// chain goes on with its changes unlisted rather than stop
			// the session at every checkpoint after. The snapshot's
			// tree is in the YAML, so this is never taken as unchanged.
			st.Problems = append(st.Problems, fmt.Errorf("changes since %s are not listed: its snapshot is missing objects (%w); ctxgit doctor names them", prev.Meta.CheckpointID, err))
			changes, err, unlisted = nil, nil, true
		}
		if err != nil {
			return nil, err
		}
		cp.Resources.FilesChanged, cp.Resources.ChangedCount = capChanges(changes, w.Config.Caps.Files)
		baseID := prevID
		if prev.Meta.SessionBase != "" {
			if baseID, err = vcs.ParseHash(prev.Meta.SessionBase); err != nil {
				return nil, fmt.Errorf("previous checkpoint: meta.session_base: %w", err)
			}
		}
		base, err := vcs.ReadCommit(store, baseID)
		if errors.Is(err, vcs.ErrObjectNotFound) {
			// ctxgit prune removed the session's first checkpoint: the
			// oldest one still on the chain is the base now (SPEC §14.2).
			baseID, base, err = chainRoot(store, prevID)
		}
		cp.Meta.SessionBase = baseID.String()
		if err == nil {
			since, err := diffWorkspace(pending, base.Tree, tree)
			if errors.Is(err, vcs.ErrObjectNotFound) {
				since, err = nil, nil // as above: unlisted, not fatal
			}
			if err != nil {
				return nil, err
			}
			cp.Resources.SinceSession, cp.Resources.SinceCount = capChanges(since, w.Config.Caps.Files)
		}
	}

	yamlData, err := spec.MarshalCheckpoint(cp)
	if err != nil {
		return nil, err
	}
	if unchangedSince(prev, cp, lost) {
		// Nothing to record (SPEC §8.7): no object, no ref move, no
		// worktree copy; the head stands for this checkpoint.
		res := &CheckpointResult{Checkpoint: prev, Commit: prevID, Ref: ref, Snapshot: snap, Problems: st.Problems,
			Unchanged: true, SecretsReported: maps.Equal(prev.Snapshot.Excluded, snap.Excluded)}
		if err := snap.SaveCache(store, prevID); err != nil {
			res.Problems = append(res.Problems, fmt.Errorf("%s/statcache: %w", spec.LocalDir, err))
		}
		return res, nil
	}
	short := w.ShortSession(opts.Session) // lists the sessions: once
	md := []byte(RenderRecovery(cp, RenderOptions{Budget: w.Config.BudgetChars(), ChangedFiles: w.Config.Recovery.ChangedFiles,
		CompactionWarn: w.Config.Recovery.CompactionWarn, FullName: short + ":" + cp.Meta.CheckpointID,
		Session: short, StateFiles: w.StateFiles()}))
	yamlID, err := pending.WriteObject(vcs.BlobObject, yamlData)
	if err != nil {
		return nil, err
	}
	mdID, err := pending.WriteObject(vcs.BlobObject, md)
	if err != nil {
		return nil, err
	}
	tree, err = vcs.Overlay(pending, tree, []vcs.PathEntry{
		{Path: spec.CheckpointYAMLPath, Mode: vcs.ModeFile, ID: yamlID},
		{Path: spec.ContextCheckpoint, Mode: vcs.ModeFile, ID: mdID},
	})
	if err != nil {
		return nil, err
	}
	sig := vcs.Signature{Name: w.Config.Checkpoint.AuthorName, Email: w.Config.Checkpoint.AuthorEmail, When: cp.Meta.CreatedAt}
	commit := &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: commitMessage(cp)}
	if !lost.IsZero() {
		commit.Message += lostHeadTrailer + ": " + lost.String() + "\n"
	}
	if !prevID.IsZero() {
		commit.Parents = []vcs.Hash{prevID}
	}
	commitID, err := vcs.WriteCommit(pending, commit)
	if err != nil {
		return nil, err
	}
	// The last moment to stop with nothing published: after Flush the
	// objects are durable, and the ref update follows at once.
	if err := ctxErr(opts.Ctx); err != nil {
		return nil, err
	}
	if err := pending.Flush(commitID); err != nil {
		return nil, fmt.Errorf("storing checkpoint objects: %w", err)
	}
	committed = true
	// A holder that lost the lock while stopped publishes nothing: not
	// the ref, not the worktree copies (SPEC §13).
	if err := w.CheckHeld(); err != nil {
		return nil, err
	}
	if err := store.UpdateRef(ref, commitID, cmp.Or(lost, prevID)); err != nil {
		if errors.Is(err, vcs.ErrRefConflict) {
			return nil, spec.Conflict("%v", err)
		}
		return nil, err
	}

	if err := pruneRaced(store, ref, commitID, cmp.Or(lost, prevID)); err != nil {
		os.Remove(w.LocalPath("statcache")) // it may name objects the prune took
		return nil, err
	}
	if !lost.IsZero() {
		w.lostNotes = append(w.lostNotes, LostHeadNote(w.ShortSession(opts.Session), lost, cp.Meta.CheckpointID))
	}
	// The ref is the record; the worktree copies are conveniences, and a
	// failure to write them must not hide that the checkpoint was taken.
	res := &CheckpointResult{Checkpoint: cp, Commit: commitID, Ref: ref, Snapshot: snap, Problems: st.Problems, LostHead: lost,
		ChangesUnlisted: unlisted, SecretsReported: prev != nil && maps.Equal(prev.Snapshot.Excluded, snap.Excluded)}
	if err := w.Publish(w.Path(spec.CheckpointYAMLPath), yamlData, 0o644); err != nil {
		res.Problems = append(res.Problems, &spec.FileError{Path: spec.CheckpointYAMLPath, Err: unwrapPathError(err)})
	}
	if err := w.Publish(w.Path(spec.ContextCheckpoint), md, 0o644); err != nil {
		res.Problems = append(res.Problems, &spec.FileError{Path: spec.ContextCheckpoint, Err: unwrapPathError(err)})
	}
	os.Remove(w.Path(spec.ContextRecovered))
	if err := snap.SaveCache(store, commitID); err != nil {
		res.Problems = append(res.Problems, fmt.Errorf("%s/statcache: %w", spec.LocalDir, err))
	}
	if res.Packed, err = autoPack(opts.Ctx, store, w.Root); err != nil {
		// The checkpoint stands; its objects stay loose until the next.
		res.Problems = append(res.Problems, fmt.Errorf("packing loose checkpoint objects: %w", err))
	}
	return res, nil
}

// autoPack packs the loose objects ctxgit's refs reach once they near
// git's gc.auto threshold (SPEC §14.4; vcs.GitStore.AutoPack), keeping the
// estimate it left in .ctxgit/local/autopack.
func autoPack(ctx context.Context, store *vcs.GitStore, root string) (*vcs.RepackResult, error) {
	if err := PrepareLocal(root); err != nil {
		return nil, err
	}
	return store.AutoPack(ctx, spec.RefPrefix, filepath.Join(root, filepath.FromSlash(spec.LocalDir), "autopack"))
}

// unchangedSince reports whether cp, the checkpoint about to be written,
// records nothing its session's head prev does not (SPEC §8.7): the same
// checkpoint YAML once the keys that describe the commit rather than the
// workspace (its id, time, previous id and base, the changes and new
// decisions since the previous checkpoint, the model files' ages) are
// taken from prev. The snapshot's tree is in the YAML, and the state files
// are read into it. A compaction is an event: always recorded.
func unchangedSince(prev, cp *spec.Checkpoint, lost vcs.Hash) bool {
	if prev == nil || !lost.IsZero() || cp.Meta.Trigger == spec.TriggerCompaction || cp.Resources.ChangedCount != 0 {
		return false
	}
	n := *cp
	n.Meta.CheckpointID, n.Meta.CreatedAt = prev.Meta.CheckpointID, prev.Meta.CreatedAt
	n.Meta.PreviousCheckpoint, n.Meta.SessionBase = prev.Meta.PreviousCheckpoint, prev.Meta.SessionBase
	n.Resources.FilesChanged, n.Resources.ChangedCount = prev.Resources.FilesChanged, prev.Resources.ChangedCount
	n.Resources.NewDecisions = prev.Resources.NewDecisions
	n.Metacog.SelfModelAge, n.Metacog.EnvModelAge = prev.Metacog.SelfModelAge, prev.Metacog.EnvModelAge
	a, err := spec.MarshalCheckpoint(&n)
	if err != nil {
		return false
	}
	b, err := spec.MarshalCheckpoint(prev)
	return err == nil && string(a) == string(b)
}

func (w *Workspace) snapshotOptions(store *vcs.GitStore) vcs.SnapshotOptions {
	o := vcs.SnapshotOptions{
		Root:        w.Root,
		Fixed:       fixedExcludes(),
		Excludes:    w.Config.Snapshot.Excludes,
		Secrets:     w.Config.Snapshot.SecretExcludes,
		MaxFileSize: int64(w.Config.Snapshot.MaxFileSize),
		StatCache:   w.LocalPath("statcache"),
		StoreKey:    store.CommonDir(),
		FS:          w.FSFlags(),
	}
	if w.Repo != nil {
		o.RepoTop = w.Repo.WorkTree
		o.InfoExclude = filepath.Join(w.Repo.CommonDir, "info", "exclude")
		o.ExcludesFile = vcs.ExcludesFile(w.Repo.CommonDir)
		o.IndexFile = filepath.Join(w.Repo.GitDir, "index")
	} else {
		o.ExcludesFile = vcs.ExcludesFile("")
	}
	return o
}

// overlayStateFiles adds the state files to the tree even when the user's
// ignore rules left them out: a checkpoint always holds its own state.
// Three rules still win over that (issue 13 items 3 and 8, issue 32): a
// state-file path that matches a secret pattern is never stored, a state
// file that is a symlink is stored as the link, never as its target's
// content (which may lie outside the workspace), and one behind a
// directory that is a link is not stored at all (the walk stored the
// link; what it leads to is not the workspace's).
func (w *Workspace) overlayStateFiles(s vcs.Store, tree vcs.Hash, st *State) (vcs.Hash, error) {
	secret := ignore.New(ignore.ParsePatterns([]byte(strings.Join(w.Config.Snapshot.SecretExcludes, "\n")), "", "secrets"))
	var entries []vcs.PathEntry
	for _, rel := range []string{st.PlanPath, st.FailurePath, st.DecisionsPath, w.Config.Paths.TaskState} {
		if secret.Match(rel, false) || regfile.Dirs(w.Root, rel, false) != nil {
			continue
		}
		if _, err := vcs.Lookup(s, tree, rel); err == nil {
			continue
		}
		limit := int64(w.Config.Snapshot.MaxFileSize)
		if limit == 0 {
			limit = maxStateFile // 0 means no size cap, as for the snapshot
		}
		mode, data, err := readStateEntry(w.Path(rel), limit)
		if err != nil {
			continue
		}
		id, err := s.WriteObject(vcs.BlobObject, data)
		if err != nil {
			return tree, err
		}
		entries = append(entries, vcs.PathEntry{Path: rel, Mode: mode, ID: id})
	}
	if len(entries) == 0 {
		return tree, nil
	}
	return vcs.Overlay(s, tree, entries)
}

// readStateEntry reads a state file for the tree as git would store it: a
// symlink as its target path (never followed), a regular file as its
// content within limit; anything else is an error.
func readStateEntry(path string, limit int64) (uint32, []byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		return vcs.ModeSymlink, []byte(filepath.ToSlash(target)), err
	case !fi.Mode().IsRegular():
		return 0, nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := regfile.ReadFile(path, limit) // never follows, never blocks
	return vcs.ModeFile, data, err
}

// diffWorkspace diffs two checkpoint trees, leaving out ctxgit's outputs.
func diffWorkspace(s vcs.Store, a, b vcs.Hash) ([]vcs.Change, error) {
	changes, err := vcs.DiffTrees(s, a, b)
	if err != nil {
		return nil, err
	}
	out := changes[:0]
	for _, c := range changes {
		if !isOutputPath(c.Path) {
			out = append(out, c)
		}
	}
	return out, nil
}

func isOutputPath(p string) bool {
	for _, o := range outputPaths {
		if p == o {
			return true
		}
	}
	return false
}

func capChanges(changes []vcs.Change, max int) ([]spec.FileChange, int) {
	out := []spec.FileChange{}
	for _, c := range changes {
		if len(out) >= max {
			break
		}
		out = append(out, spec.FileChange{Path: c.Path, Status: c.Status, From: c.From})
	}
	return out, len(changes)
}

// readHead reads a session's newest checkpoint; a session with none yet gives
// zero values.
func readHead(store vcs.Store, ref string) (vcs.Hash, *spec.Checkpoint, error) {
	id, err := store.ReadRef(ref)
	if errors.Is(err, vcs.ErrRefNotFound) {
		return vcs.ZeroHash, nil, nil
	}
	if err != nil {
		return vcs.ZeroHash, nil, err
	}
	cp, err := readCheckpointAt(store, id)
	if err != nil {
		return vcs.ZeroHash, nil, err
	}
	return id, cp, nil
}

// readCheckpointAt reads the checkpoint YAML stored in a commit.
func readCheckpointAt(store vcs.Store, id vcs.Hash) (*spec.Checkpoint, error) {
	c, err := vcs.ReadCommit(store, id)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", id.Short(), err)
	}
	data, err := vcs.ReadFileAt(store, c.Tree, spec.CheckpointYAMLPath)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", id.Short(), err)
	}
	return spec.ParseCheckpoint(id.Short()+":"+spec.CheckpointYAMLPath, data)
}

func (w *Workspace) buildCheckpoint(opts CheckpointOptions, st *State, prev *spec.Checkpoint, snap *vcs.SnapshotResult) *spec.Checkpoint {
	caps := w.Config.Caps
	now := w.Now()
	cp := &spec.Checkpoint{Schema: spec.CheckpointSchema, SchemaVersion: spec.CheckpointSchemaVersion}
	seq := 1
	if prev != nil {
		n, _ := spec.ParseCheckpointID(prev.Meta.CheckpointID)
		seq = n + 1
		cp.Meta.PreviousCheckpoint = prev.Meta.CheckpointID
		cp.Meta.CompactionCount = prev.Meta.CompactionCount
	}
	if opts.CompactionCount != nil {
		cp.Meta.CompactionCount = *opts.CompactionCount
	}
	cp.Meta.CheckpointID = spec.FormatCheckpointID(seq)
	cp.Meta.SessionKey = opts.Session
	cp.Meta.CreatedAt = now
	cp.Meta.Trigger = opts.Trigger
	cp.Meta.TokenUsage = opts.Usage
	cp.Meta.Host = opts.Host
	cp.Meta.AgentID = opts.AgentID
	cp.Meta.Message = spec.Text(opts.Message)
	if w.Repo != nil {
		cp.Meta.Branch = vcs.HeadBranch(w.Repo.GitDir)
	}

	cp.Working.Status = opts.Status
	if cp.Working.Status == "" {
		cp.Working.Status = spec.WorkingInProgress
	}
	cp.Working.Interrupted = opts.Interrupted
	cp.Working.LastToolCall = opts.LastToolCall

	if p := st.Plan; p != nil {
		cp.Plan.Source = st.PlanPath
		cp.Plan.Title = spec.Text(p.Title)
		cp.Plan.Goal = spec.Text(p.Goal)
		if cur := p.Current(); cur != nil {
			cp.Plan.CurrentStep = spec.Text(cur.Title())
		}
		cp.Plan.Done, cp.Plan.Total = p.Progress()
		cp.Plan.Steps = []spec.StepInfo{}
		for i, s := range p.Steps {
			if i == maxRecordedSteps {
				break
			}
			cp.Plan.Steps = append(cp.Plan.Steps, spec.StepInfo{Number: s.Number, Name: s.Name, Status: s.Status})
		}
		cp.Metacog.PendingAssumptions = p.PendingAssumptions
		cp.OpenItems = append(cp.OpenItems, p.OpenItems...)
	}
	if opts.Task != nil {
		cp.Task = opts.Task
		cp.OpenItems = append(cp.OpenItems, opts.Task.OpenIssues...)
		cp.OpenItems = append(cp.OpenItems, opts.Task.Blockers...)
	}

	cp.Working.NextAction = spec.Text(nextAction(opts, st))
	cp.Working.Topic = spec.Text(firstLine(opts.Message))
	if cp.Working.Topic == "" {
		cp.Working.Topic = cp.Plan.Title
	}
	if cp.Working.Topic == "" {
		cp.Working.Topic = cp.Plan.Goal
	}

	if f := st.LastFailure(); f != nil {
		cp.Metacog.LastFailure = spec.Text(f.Summary)
		cp.Metacog.LastFailureType = string(f.Type)
		cp.Metacog.LastFailureAction = string(f.Action)
	}
	cp.Metacog.LastToolFailure = unloggedToolFailure(opts.ToolFailure, st.Failures)
	cp.Metacog.FailureCount = len(st.Failures)
	cp.Metacog.SelfModelAge = ageText(st.SelfModelAge)
	cp.Metacog.EnvModelAge = ageText(st.EnvModelAge)

	ds := st.Decisions
	if len(ds) > caps.Decisions {
		ds = ds[len(ds)-caps.Decisions:]
	}
	prevDecisions := map[string]bool{}
	if prev != nil {
		for _, d := range prev.Decisions {
			prevDecisions[string(d.What)] = true
		}
	}
	cp.Decisions = []spec.DecisionRef{}
	cp.Resources.NewDecisions = []string{}
	for _, d := range ds {
		ref := spec.DecisionRef{ID: d.ID, What: spec.Text(d.What), Why: spec.Text(d.Why)}
		if !d.When.IsZero() {
			ref.When = d.When.UTC().Format(time.RFC3339)
		}
		cp.Decisions = append(cp.Decisions, ref)
		if !prevDecisions[d.What] {
			cp.Resources.NewDecisions = append(cp.Resources.NewDecisions, d.ID)
		}
	}

	cp.Resources.FilesRead = capStrings(opts.FilesRead, caps.Files)
	cp.Resources.FilesModified = capStrings(opts.FilesModified, caps.Files)
	cp.Resources.ModifiedSincePrevious = capStrings(modifiedSince(opts.FilesModified, opts.FilesModifiedAt, prev), caps.Files)
	cp.Resources.ToolsUsed = capStrings(opts.ToolsUsed, caps.Tools)
	cp.Resources.FilesChanged = []spec.FileChange{}
	cp.Resources.SinceSession = []spec.FileChange{}

	cp.Thread = opts.Thread
	if len(cp.Thread.KeyExchanges) > caps.Exchanges {
		cp.Thread.KeyExchanges = cp.Thread.KeyExchanges[len(cp.Thread.KeyExchanges)-caps.Exchanges:]
	}
	if cp.Thread.KeyExchanges == nil {
		cp.Thread.KeyExchanges = []spec.Exchange{}
	}
	if hp := cp.Thread.HostPlan; hp != nil {
		// A copy: the caller's plan is not ours to trim.
		c := *hp
		if len(c.Steps) > maxHostPlanSteps {
			c.Steps = c.Steps[:maxHostPlanSteps]
		}
		cp.Thread.HostPlan = &c
	}

	cp.Learnings = append([]string{}, opts.Learnings...)
	for _, f := range st.Failures {
		if f.Lesson != "" {
			cp.Learnings = append(cp.Learnings, f.Lesson)
		}
	}
	cp.Learnings = Dedupe(cp.Learnings)
	if len(cp.Learnings) > maxLearnings {
		cp.Learnings = cp.Learnings[len(cp.Learnings)-maxLearnings:]
	}
	cp.OpenItems = capStrings(cp.OpenItems, maxOpenItems)
	cp.Metacog.PendingAssumptions = capStrings(cp.Metacog.PendingAssumptions, maxOpenItems)

	cp.Snapshot = spec.SnapshotSummary{
		Tree: snap.Tree.String(), Files: snap.Files, Bytes: snap.Bytes,
		TooLarge: snap.TooLarge, Nested: snap.Nested,
	}
	if len(snap.Excluded) > 0 {
		cp.Snapshot.Excluded = snap.Excluded
	}
	return cp
}

// Caps on lists the config does not bound, so a runaway plan cannot bloat
// every checkpoint (SPEC §8.5).
const (
	maxRecordedSteps = 200
	maxLearnings     = 20
	maxOpenItems     = 50
	maxHostPlanSteps = 50
)

// StateFiles are ctxgit's own files in the workspace, as configured: the
// plan, the failure log and its fallback, the decisions log and the task
// state and its JSON sibling (the recovery block leaves them out of the
// changed files, SPEC §10.1).
func (w *Workspace) StateFiles() []string {
	p := w.Config.Paths
	return []string{p.Plan, p.FailureLog, p.FailureLogFallback, p.Decisions, p.TaskState, taskStateJSON(p.TaskState)}
}

// nextAction is, in order: the caller's, the task state's, else "continue"
// with the plan's current step (SPEC §10.4).
func nextAction(opts CheckpointOptions, st *State) string {
	if opts.NextAction != "" {
		return opts.NextAction
	}
	if opts.Task != nil && opts.Task.NextAction != "" {
		return opts.Task.NextAction
	}
	if st.Plan != nil {
		if cur := st.Plan.Current(); cur != nil {
			return "Continue step " + cur.Title()
		}
		if len(st.Plan.Steps) > 0 {
			return "All plan steps are done or failed: check the plan's done-when condition"
		}
	}
	if hp := opts.Thread.HostPlan; st.Plan == nil && hp != nil {
		// Without a plan file, the plan the agent keeps with its host
		// says what comes next (SPEC §10.4).
		if cur := hp.Current(); cur != nil {
			return "Continue: " + string(cur.Text)
		}
	}
	return ""
}

func ageText(d time.Duration) string {
	if d < 0 {
		return ""
	}
	return d.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func capStrings(in []string, max int) []string {
	out := Dedupe(in)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// Dedupe drops empty and repeated strings, keeping the first of each.
func Dedupe(in []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range in {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// commitMessage is a subject line and git trailers (SPEC §7.2), so
// `git log --format=%(trailers)` is useful without reading the YAML.
func commitMessage(cp *spec.Checkpoint) string {
	// The subject says what happened: the message, when one was given.
	// A topic taken from the plan would repeat the plan's title on every
	// line of `git log` and `ctxgit log`, which then say the trigger in
	// words instead (docs/cli.md#log).
	subject := fmt.Sprintf("checkpoint %s (%s)", cp.Meta.CheckpointID, cp.Meta.Trigger)
	if t := firstLine(string(cp.Meta.Message)); t != "" {
		subject += ": " + truncateRunes(t, 60)
	}
	var b strings.Builder
	b.WriteString(subject + "\n\n")
	if m := strings.TrimSpace(string(cp.Meta.Message)); m != "" && m != firstLine(m) {
		b.WriteString(m + "\n\n")
	}
	util := "unknown"
	if cp.Meta.TokenUsage.Source != "" {
		util = fmt.Sprintf("%.2f", cp.Meta.TokenUsage.Utilization)
	}
	trailers := [][2]string{
		{"Ctxgit-Session", cp.Meta.SessionKey},
		{"Ctxgit-Checkpoint", cp.Meta.CheckpointID},
		{"Ctxgit-Trigger", cp.Meta.Trigger},
		{"Ctxgit-Utilization", util},
		{"Ctxgit-Schema", fmt.Sprintf("%s v%d", spec.CheckpointSchema, spec.CheckpointSchemaVersion)},
	}
	for _, t := range trailers {
		b.WriteString(t[0] + ": " + t[1] + "\n")
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ctxErr is ctx.Err() for an optional context: a nil one is never done.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// CheckpointLine is the one line `ctxgit checkpoint` and the MCP
// checkpoint tool say: the id, the session by its short id, what changed,
// the files and the commit; the ref only when the short id names the
// session whole (a host's 36-character id is not for reading).
func (w *Workspace) CheckpointLine(res *CheckpointResult) string {
	cp := res.Checkpoint
	changed := "first checkpoint of the session"
	switch {
	case res.Unchanged:
		// Nothing to record: the head stands (SPEC §8.7).
		changed = "unchanged, no new commit"
	case res.ChangesUnlisted:
		changed = "changes since " + cp.Meta.PreviousCheckpoint + " not listed"
	case cp.Meta.PreviousCheckpoint != "":
		changed = spec.Plural(cp.Resources.ChangedCount, "file") + " changed since " + cp.Meta.PreviousCheckpoint
	}
	short := w.ShortSession(cp.Meta.SessionKey)
	where := ""
	if short == cp.Meta.SessionKey {
		where = " on " + res.Ref
	}
	return fmt.Sprintf("checkpoint %s · session %s · %s · %s · commit %s%s",
		cp.Meta.CheckpointID, short, changed, spec.Plural(res.Snapshot.Files, "file"), res.Commit.Short(), where)
}
