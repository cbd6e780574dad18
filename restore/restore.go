// Package restore is `ctxgit restore` (docs/cli.md#restore): it brings files back
// from a checkpoint's snapshot after a safety checkpoint. It works over
// vcs.Store and the workspace core's exported calls; workspace never
// imports it (ARCHITECTURE.md).
package restore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/ospath"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/ignore"
	"github.com/ctxgit/ctxgit/workspace"
)

// Options say what `ctxgit restore` brings back (docs/cli.md#restore).
type Options struct {
	// Name is the checkpoint to restore from (docs/cli.md#show).
	Name string
	// Session resolves a name without SESSION: and receives the safety
	// checkpoint.
	Session string
	// Paths limit the restore to these files or directories, as typed:
	// relative to the current directory when it is inside the workspace,
	// else to the root, or absolute. None means the whole snapshot.
	Paths []string
	// Delete removes files the checkpoint does not hold; without it they
	// are kept and reported.
	Delete bool
	// DryRun plans and reports, and changes nothing at all.
	DryRun bool
	// Force overwrites content the safety checkpoint cannot hold.
	Force bool
	// KeepState leaves the state files (plan, logs, task state,
	// summaries) as they are.
	KeepState bool
	// Ctx, when not nil, interrupts the restore (Ctrl-C): before the
	// safety checkpoint nothing is changed; after it, the restore stops
	// between files, each file either restored whole or untouched, and
	// the safety checkpoint holds the workspace as it was.
	Ctx context.Context
}

// Restore actions, one per path (docs/cli.md#restore).
const (
	Create = "create" // absent now: written from the checkpoint
	Write  = "write"  // there now, different: replaced
	Delete = "delete" // not in the checkpoint (--delete), or in the way of it
	Keep   = "keep"   // left as it is, with the reason
	Refuse = "refuse" // would destroy what the safety checkpoint cannot hold
)

// Change is what a restore does to one path.
type Change struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`

	want       vcs.TreeEntry // the checkpoint's entry (create, write)
	held       vcs.TreeEntry // the safety checkpoint's entry for what is there now; zero when none
	forced     bool          // --force: what is there now is not held
	replaceDir bool          // a directory now, removed before the write
	blocked    int           // checkpoint paths below a kept or refused path, not restored
}

// Result is what a restore did, or, on a dry run, would do.
type Result struct {
	From *workspace.Resolved
	// Paths is the workspace-relative scope; nil for the whole snapshot.
	Paths   []string
	Changes []Change
	// Safety is the checkpoint taken first; nil on a dry run and when
	// there was nothing to change.
	Safety *workspace.CheckpointResult
	// After is the checkpoint the restore ends with, of the workspace as
	// it left it (trigger post-restore), so the next block is built from
	// the restored state, never from the safety checkpoint; nil when
	// Safety is.
	After  *workspace.CheckpointResult
	DryRun bool
	// RemovedTemp counts the temporary files killed writers left in the
	// directories the restore works in, removed (docs/cli.md#restore).
	RemovedTemp int
}

// Count is the number of changes with the given action.
func (r *Result) Count(action string) int {
	n := 0
	for _, c := range r.Changes {
		if c.Action == action {
			n++
		}
	}
	return n
}

// Changed is the number of paths created, written or deleted.
func (r *Result) Changed() int {
	return r.Count(Create) + r.Count(Write) + r.Count(Delete)
}

// RefusedError is a restore refused because it would destroy content
// the safety checkpoint cannot hold (docs/cli.md#restore). It matches
// spec.ErrConflict (exit 5).
type RefusedError struct {
	Refused []Change
	// Safety names the safety checkpoint when the workspace changed while
	// it was taken, so the refusal came after it.
	Safety string
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("restore refused: ")
	if len(e.Refused) == 1 {
		fmt.Fprintf(&b, "%s: %s: the safety checkpoint cannot hold it; --force overwrites it", safetext.Path(e.Refused[0].Path), e.Refused[0].Reason)
	} else {
		fmt.Fprintf(&b, "%d paths hold what the safety checkpoint cannot hold (--force overwrites them): ", len(e.Refused))
		for i, c := range e.Refused {
			if i == 3 {
				fmt.Fprintf(&b, "; and %d more", len(e.Refused)-i)
				break
			}
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s: %s", safetext.Path(c.Path), c.Reason)
		}
	}
	b.WriteString("; nothing was restored")
	if e.Safety != "" {
		fmt.Fprintf(&b, " (the workspace changed while the safety checkpoint %s was taken)", e.Safety)
	}
	return b.String()
}

// Is makes a refusal a conflict (exit 5).
func (e *RefusedError) Is(target error) bool { return target == spec.ErrConflict }

// ws is the workspace core with restore's methods on it.
type ws struct{ *workspace.Workspace }

// Run brings files back from a checkpoint's snapshot (docs/cli.md#restore): it
// plans every path first, refuses before changing anything when a path
// holds content the safety checkpoint cannot hold, takes that safety
// checkpoint, and then writes each file atomically, under the workspace
// lock. A dry run plans and reports only, without the lock.
func Run(w *workspace.Workspace, opts Options) (*Result, error) {
	return (&ws{w}).Restore(opts)
}

// Restore is Run on the workspace.
func (w *ws) Restore(opts Options) (*Result, error) {
	if opts.Session == "" {
		opts.Session = spec.DefaultSession
	}
	if err := spec.ValidateSessionKey(opts.Session); err != nil {
		return nil, err
	}
	scope, err := w.restoreScope(opts.Paths)
	if err != nil {
		return nil, err
	}
	// Resolve before the lock too: an unknown checkpoint leaves no trace,
	// not even .ctxgit/local/.
	if _, err := w.Resolve(opts.Name, opts.Session); err != nil {
		return nil, err
	}
	if opts.DryRun {
		return w.restore(opts, scope)
	}
	lock, err := w.LockContext(opts.Ctx)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	return w.restore(opts, scope)
}

func (w *ws) restore(opts Options, scope []string) (*Result, error) {
	from, err := w.Resolve(opts.Name, opts.Session)
	if err != nil {
		return nil, err
	}
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	c, err := vcs.ReadCommit(store, from.Commit)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", from.Commit.Short(), err)
	}
	named := w.sessionLabel(from) + ":" + from.Checkpoint.Meta.CheckpointID
	res := &Result{From: from, Paths: scope, DryRun: opts.DryRun}

	// What the safety checkpoint would hold now: the snapshot and state
	// files a checkpoint takes, hashed but not stored, so a dry run or a
	// refusal writes nothing.
	view := vcs.NewHashOnly(store)
	snap, cur, err := w.PendingCheckpoint(opts.Ctx, view, opts.Session)
	if err != nil {
		return nil, err
	}
	res.Changes, err = w.planRestore(view, from, c.Tree, cur, snap, scope, opts)
	if err != nil {
		return nil, err
	}
	if refused := refusedChanges(res.Changes); len(refused) > 0 {
		return res, &RefusedError{Refused: refused}
	}
	if !opts.DryRun {
		// A killed restore leaves its temporary file in the directory of
		// the path it was writing, which this plan writes again.
		dirs := make([]string, 0, len(res.Changes))
		for _, c := range res.Changes {
			dirs = append(dirs, path.Dir(c.Path))
		}
		res.RemovedTemp = w.RemoveStrayTemps(dirs)
	}
	if opts.DryRun || res.Changed() == 0 {
		return res, nil
	}

	// A retry after a restore that failed past its safety checkpoint
	// finds that checkpoint still holding the workspace as it is: it is
	// the safety checkpoint again, not a new one on each try.
	safety, err := w.reusableSafety(store, view, opts.Session, cur, snap)
	if err != nil {
		return res, err
	}
	if safety == nil {
		safety, err = w.CheckpointHeld(workspace.CheckpointOptions{Session: opts.Session, Trigger: spec.TriggerRestore, Message: restoreMessage(named, w.sessionTitle(from), scope), Ctx: opts.Ctx})
		if err != nil {
			return res, fmt.Errorf("taking the safety checkpoint: %w", err)
		}
	}
	res.Safety = safety
	safetyName := opts.Session + ":" + safety.Checkpoint.Meta.CheckpointID
	sc, err := vcs.ReadCommit(store, safety.Commit)
	if err != nil {
		return res, err
	}
	// Plan again against what the safety checkpoint really holds: a file
	// changed between the two snapshots is then judged by its new content.
	res.Changes, err = w.planRestore(store, from, c.Tree, sc.Tree, safety.Snapshot, scope, opts)
	if err != nil {
		return res, err
	}
	if refused := refusedChanges(res.Changes); len(refused) > 0 {
		return res, &RefusedError{Refused: refused, Safety: safetyName}
	}
	if err := w.verifyRestore(res.Changes, safetyName); err != nil {
		return res, err
	}
	if err := w.applyRestore(opts.Ctx, store, res.Changes); err != nil {
		return res, fmt.Errorf("%w; the safety checkpoint %s holds the workspace as it was before (ctxgit restore --delete %s puts it back)", err, safetyName, safetyName)
	}
	after, err := w.CheckpointHeld(workspace.CheckpointOptions{Session: opts.Session, Trigger: spec.TriggerRestored,
		Message: "restored " + strings.TrimPrefix(restoreMessage(named, w.sessionTitle(from), scope), "before restoring "), Ctx: opts.Ctx})
	if err != nil {
		return res, fmt.Errorf("restored, but the checkpoint of the restored workspace failed: %w", err)
	}
	res.After = after
	return res, nil
}

// reusableSafety is the session's newest checkpoint when it is a safety
// checkpoint (trigger pre-restore) holding exactly what a new one would
// (cur, the snapshot and state files), else nil.
func (w *ws) reusableSafety(store vcs.Store, view vcs.Store, session string, cur vcs.Hash, snap *vcs.SnapshotResult) (*workspace.CheckpointResult, error) {
	ref := w.SessionRef(session)
	headID, head, err := w.SessionHead(store, session)
	if err != nil || head == nil || head.Meta.Trigger != spec.TriggerRestore {
		return nil, err
	}
	hc, err := vcs.ReadCommit(store, headID)
	if err != nil {
		return nil, err
	}
	// A checkpoint's tree is the snapshot and state files plus its two
	// output files: lay the head's outputs over cur and compare.
	var outputs []vcs.PathEntry
	for _, p := range []string{spec.CheckpointYAMLPath, spec.ContextCheckpoint} {
		e, err := vcs.Lookup(store, hc.Tree, p)
		if err != nil {
			return nil, nil
		}
		outputs = append(outputs, vcs.PathEntry{Path: p, Mode: e.Mode, ID: e.ID})
	}
	same, err := vcs.Overlay(view, cur, outputs)
	if err != nil || same != hc.Tree {
		return nil, err
	}
	return &workspace.CheckpointResult{Checkpoint: head, Commit: headID, Ref: ref, Snapshot: snap}, nil
}

func refusedChanges(changes []Change) []Change {
	var out []Change
	for _, c := range changes {
		if c.Action == Refuse {
			out = append(out, c)
		}
	}
	return out
}

// restoreMessage is the safety checkpoint's message: its first line, the
// commit's subject (cut at 60 characters), says what is restored: the
// checkpoint, named by its session's short id, and the paths that fit,
// or (whole snapshot). The session's title, and the paths when not all
// fit, are the message's body (docs/cli.md#restore).
func restoreMessage(label, title string, scope []string) string {
	subject := "before restoring " + label
	var body []string
	if len(scope) == 0 {
		subject += " (whole snapshot)"
	} else {
		shown := 0
		for shown < len(scope) {
			next := subject + ", " + scope[shown]
			if shown == 0 {
				next = subject + ": " + scope[0]
			}
			more := ""
			if n := len(scope) - shown - 1; n > 0 {
				more = fmt.Sprintf(" and %d more", n)
			}
			if shown > 0 && utf8.RuneCountInString(next+more) > subjectTopicRunes {
				break
			}
			subject = next
			shown++
		}
		if n := len(scope) - shown; n > 0 {
			subject += fmt.Sprintf(" and %d more", n)
			listed := scope
			if len(listed) > maxListedPaths {
				listed = listed[:maxListedPaths]
			}
			line := "paths: " + strings.Join(listed, ", ")
			if n := len(scope) - len(listed); n > 0 {
				line += fmt.Sprintf(" and %d more", n)
			}
			body = append(body, line)
		}
	}
	if title != "" {
		body = append([]string{"session “" + clipRunes(title, 60) + "”"}, body...)
	}
	m := subject
	if len(body) > 0 {
		m += "\n\n" + strings.Join(body, "\n")
	}
	// A path can hold any bytes; a checkpoint message holds text.
	return strings.ToValidUTF8(strings.ReplaceAll(m, "\x00", ""), "?")
}

// maxListedPaths bounds the paths a restore's message lists.
const maxListedPaths = 20

// subjectTopicRunes is how much of a message a checkpoint's subject
// keeps (workspace's commitMessage).
const subjectTopicRunes = 60

// clipRunes cuts s to n runes, with an ellipsis.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimRight(string(r[:n-1]), " ") + "…"
	}
	return s
}

// sessionLabel is how a restore's messages name r's session: its short
// id among the workspace's sessions (docs/cli.md#log).
func (w *ws) sessionLabel(r *workspace.Resolved) string { return w.ShortSession(r.Session) }

// sessionTitle is the title of r's session, from its newest checkpoint
// ("" when it has none).
func (w *ws) sessionTitle(r *workspace.Resolved) string {
	head, err := w.Resolve("@", r.Session)
	if err != nil {
		return ""
	}
	return workspace.NamesOf(w.Workspace, head).Title
}

// restoreScope turns the typed paths into workspace-relative ones; nil
// means the whole snapshot. Paths outside the workspace, and ctxgit's own
// machine-local files and outputs, are usage errors.
func (w *ws) restoreScope(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	base := w.Root
	if cwd, err := filepath.EvalSymlinks(w.Env.Cwd); err == nil && insideDir(w.Root, cwd) {
		base = cwd
	}
	var out []string
	whole := false
	for _, p := range paths {
		if p == "" {
			return nil, spec.Usage("an empty path: name a file or directory, or . for the whole snapshot")
		}
		// Any other bytes are a name some file may have (not UTF-8 only).
		if strings.IndexByte(p, 0) >= 0 {
			return nil, spec.Usage("a path must not contain NUL bytes")
		}
		abs := ospath.Abs(base, p)
		if !insideDir(w.Root, abs) {
			return nil, spec.Usage("path %s is outside the workspace %s", p, w.Root)
		}
		rel, err := filepath.Rel(w.Root, abs)
		if err != nil {
			return nil, spec.Usage("path %s is outside the workspace %s", p, w.Root)
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			whole = true
			continue
		}
		for _, el := range strings.Split(rel, "/") {
			if vcs.RefusedName(el, false) {
				return nil, spec.Usage("path %s is inside a .git directory: never restored", p)
			}
		}
		if underDir(rel, spec.LocalDir) || underDir(rel, spec.PrivateStoreDir) {
			return nil, spec.Usage("path %s: ctxgit's machine-local files and store are never restored", p)
		}
		if workspace.IsCheckpointOutput(rel) {
			return nil, spec.Usage("path %s: ctxgit writes it at each checkpoint; it is never restored", p)
		}
		out = append(out, rel)
	}
	if whole {
		return nil, nil
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// insideDir reports whether p is dir or below it (both absolute, clean).
func insideDir(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// underDir reports whether the slash path p is dir or below it.
func underDir(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// restorePlan decides, path by path, what a restore does.
type restorePlan struct {
	w     *ws
	s     vcs.Store
	cur   vcs.Hash // what the safety checkpoint holds (or would)
	snap  *vcs.SnapshotResult
	scope []string
	label string
	opts  Options
	state []string // state files and directories, for --keep-state
	// tooLarge are the files the checkpoint left out for their size.
	tooLarge map[string]bool
	byPath   map[string]*Change
	anc      map[string]ancState
	fs       vcs.FSFlags // what this file system cannot do (SPEC §9.7)

	secrets  []*ignore.Matcher
	excludes *ignore.Matcher
}

// ancState is what a restore finds at a directory of the checkpoint.
type ancState int

const (
	ancDir      ancState = iota // a directory: go on below it
	ancAbsent                   // nothing: everything below is created
	ancReplaced                 // a file or link, removed first
	ancBlocked                  // kept or refused: nothing below is restored
)

// planRestore compares the checkpoint's tree with what the safety
// checkpoint holds (cur) and with the disk, for the paths in scope.
func (w *ws) planRestore(s vcs.Store, from *workspace.Resolved, target, cur vcs.Hash, snap *vcs.SnapshotResult, scope []string, opts Options) ([]Change, error) {
	p := &restorePlan{w: w, s: s, cur: cur, snap: snap, scope: scope, opts: opts,
		label:  w.sessionLabel(from) + ":" + from.Checkpoint.Meta.CheckpointID,
		byPath: map[string]*Change{}, anc: map[string]ancState{}, tooLarge: map[string]bool{}, fs: w.FSFlags()}
	// A file the checkpoint left out for its size was there all the same:
	// --delete must not take its absence from the tree for a deletion.
	for _, t := range from.Checkpoint.Snapshot.TooLarge {
		if i := strings.LastIndex(t, " ("); i > 0 {
			p.tooLarge[t[:i]] = true
		}
	}
	if opts.KeepState {
		ps := w.Config.Paths
		p.state = []string{ps.Plan, ps.FailureLog, ps.FailureLogFallback, ps.Decisions, ps.TaskState, ps.Summaries}
		if alt := strings.TrimSuffix(strings.TrimSuffix(ps.TaskState, ".yaml"), ".yml") + ".json"; alt != ps.TaskState {
			p.state = append(p.state, alt)
		}
	}
	if p.fs.IgnoreCase {
		if err := checkCaseClash(s, target, "", p.skip, p.label); err != nil {
			return nil, err
		}
	}
	for _, sc := range scope {
		_, errT := vcs.Lookup(s, target, sc)
		_, errC := vcs.Lookup(s, cur, sc)
		if errT == nil || errC == nil {
			continue
		}
		if !errors.Is(errT, vcs.ErrObjectNotFound) {
			return nil, errT
		}
		return nil, spec.NotFound("path %s: not in checkpoint %s", sc, p.label)
	}
	diff, err := vcs.DiffTrees(s, cur, target)
	if err != nil {
		return nil, err
	}
	// A rename is a removal and a creation to a restore.
	var writes, removes []vcs.Change
	for _, c := range diff {
		switch c.Status {
		case vcs.Renamed:
			removes = append(removes, vcs.Change{Path: c.From, Status: vcs.Deleted, OldID: c.OldID, OldMode: c.OldMode})
			writes = append(writes, vcs.Change{Path: c.Path, Status: vcs.Added, NewID: c.NewID, NewMode: c.NewMode})
		case vcs.Deleted:
			removes = append(removes, c)
		default:
			writes = append(writes, c)
		}
	}
	for _, c := range writes {
		if p.skip(c.Path) {
			continue
		}
		if err := p.planWrite(c); err != nil {
			return nil, err
		}
	}
	for _, c := range removes {
		if p.skip(c.Path) {
			continue
		}
		p.planRemove(c)
	}
	out := make([]Change, 0, len(p.byPath))
	for _, c := range p.byPath {
		if c.blocked > 0 {
			c.Reason += fmt.Sprintf("; %s of the checkpoint below it not restored", spec.Plural(c.blocked, "path"))
		}
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// skip leaves out paths outside the scope, ctxgit's own files, and with
// --keep-state the state files.
func (p *restorePlan) skip(rel string) bool {
	if p.scope != nil && !slices.ContainsFunc(p.scope, func(s string) bool { return underDir(rel, s) }) {
		return true
	}
	if workspace.IsCheckpointOutput(rel) || underDir(rel, spec.LocalDir) || underDir(rel, spec.PrivateStoreDir) {
		return true
	}
	return slices.ContainsFunc(p.state, func(s string) bool { return s != "" && underDir(rel, s) })
}

func (p *restorePlan) set(rel, action, reason string) *Change {
	if c, ok := p.byPath[rel]; ok {
		return c
	}
	c := &Change{Path: rel, Action: action, Reason: reason}
	p.byPath[rel] = c
	return c
}

// planWrite decides a path the checkpoint holds and the safety checkpoint
// holds differently or not at all.
func (p *restorePlan) planWrite(c vcs.Change) error {
	x := c.Path
	if err := p.checkSafe(x, c.NewMode == vcs.ModeSymlink); err != nil {
		return err
	}
	if c.NewMode == vcs.ModeGitlink {
		p.set(x, Keep, "a nested repository in the checkpoint: not restored")
		return nil
	}
	want := vcs.TreeEntry{Name: path.Base(x), Mode: c.NewMode, ID: c.NewID}
	// Every directory above x must be a directory or absent: a restore
	// never writes through a symlink, nor into another repository.
	absent := false
	dirs := strings.Split(x, "/")
	for i := 1; i < len(dirs) && !absent; i++ {
		st, err := p.ancestor(strings.Join(dirs[:i], "/"))
		if err != nil {
			return err
		}
		switch st {
		case ancBlocked:
			return nil
		case ancAbsent, ancReplaced:
			absent = true
		}
	}
	var fi fs.FileInfo
	if !absent {
		var err error
		fi, err = os.Lstat(p.w.Path(x))
		if errors.Is(err, fs.ErrNotExist) {
			absent = true
		} else if err != nil {
			return ioError(x, err)
		}
	}
	switch {
	case absent:
		p.set(x, Create, "").want = want
	case fi.IsDir():
		return p.planReplaceDir(x, want)
	case c.Status == vcs.Modified && c.OldMode != vcs.ModeGitlink:
		ch := p.set(x, Write, "")
		ch.want, ch.held = want, vcs.TreeEntry{Name: path.Base(x), Mode: c.OldMode, ID: c.OldID}
	case p.opts.Force:
		ch := p.set(x, Write, "forced: "+p.whyNotHeld(x, fi)+"; its content is not in the safety checkpoint")
		ch.want, ch.forced = want, true
	default:
		p.set(x, Refuse, p.whyNotHeld(x, fi))
	}
	return nil
}

// ancestor decides, once, a directory above a path to write.
func (p *restorePlan) ancestor(a string) (ancState, error) {
	st, ok := p.anc[a]
	if !ok {
		var err error
		if st, err = p.decideAncestor(a); err != nil {
			return st, err
		}
		p.anc[a] = st
	}
	if st == ancBlocked {
		p.byPath[a].blocked++
	}
	return st, nil
}

func (p *restorePlan) decideAncestor(a string) (ancState, error) {
	fi, err := os.Lstat(p.w.Path(a))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ancAbsent, nil
	case err != nil:
		return ancDir, ioError(a, err)
	case fi.IsDir():
		if workspace.IsRepoDir(p.w.Path(a)) {
			p.set(a, Keep, "a nested repository now, a directory in the checkpoint")
			return ancBlocked, nil
		}
		return ancDir, nil
	}
	what := kindOf(fi)
	if held, ok := p.heldEntry(a); ok {
		if p.opts.Delete {
			p.set(a, Delete, what+" now, a directory in the checkpoint").held = held
			return ancReplaced, nil
		}
		p.set(a, Keep, what+" now, a directory in the checkpoint: --delete replaces it")
		return ancBlocked, nil
	}
	why := p.whyNotHeld(a, fi)
	if p.opts.Force {
		ch := p.set(a, Delete, "forced: "+why+"; "+what+" now, a directory in the checkpoint")
		ch.forced = true
		return ancReplaced, nil
	}
	p.set(a, Refuse, why+"; "+what+" now, a directory in the checkpoint")
	return ancBlocked, nil
}

// planReplaceDir decides a path that is a directory now and a file or link
// in the checkpoint. The directory goes only when the safety checkpoint
// holds everything in it (its files are then deleted, which needs
// --delete); ignored and excluded files are never deleted, not even with
// --force.
func (p *restorePlan) planReplaceDir(x string, want vcs.TreeEntry) error {
	abs := p.w.Path(x)
	if workspace.IsRepoDir(abs) {
		p.set(x, Keep, "a nested repository now: never replaced")
		return nil
	}
	held := map[string]bool{}
	if e, err := vcs.Lookup(p.s, p.cur, x); err == nil && e.IsDir() {
		if err := flattenTree(p.s, e.ID, x, held); err != nil {
			return err
		}
	}
	files := 0
	notHeld := ""
	walkErr := filepath.WalkDir(abs, func(fp string, d fs.DirEntry, err error) error {
		rel := x
		if r, rerr := filepath.Rel(abs, fp); rerr == nil && r != "." {
			rel = x + "/" + filepath.ToSlash(r)
		}
		if err != nil {
			notHeld = rel + " (unreadable)"
			return fs.SkipAll
		}
		if d.IsDir() {
			if fp != abs && workspace.IsRepoDir(fp) {
				notHeld = rel + " (a nested repository)"
				return fs.SkipAll
			}
			return nil
		}
		files++
		if !held[rel] {
			why := "not held"
			if fi, err := d.Info(); err == nil {
				why = p.whyNotHeld(rel, fi)
			}
			notHeld = rel + " (" + why + ")"
			return fs.SkipAll
		}
		return nil
	})
	if walkErr != nil {
		return ioError(x, walkErr)
	}
	switch {
	case notHeld != "":
		p.set(x, Keep, "a directory now, holding "+notHeld+", which the safety checkpoint cannot hold: not replaced")
	case files > 0 && !p.opts.Delete:
		p.set(x, Keep, "a directory now, a file in the checkpoint: --delete replaces it")
	default:
		ch := p.set(x, Write, "replaces a directory")
		ch.want, ch.replaceDir = want, true
	}
	return nil
}

// planRemove decides a path the safety checkpoint holds and the checkpoint
// does not.
func (p *restorePlan) planRemove(c vcs.Change) {
	if _, ok := p.byPath[c.Path]; ok {
		return // decided as a file in the way of a directory
	}
	switch {
	case c.OldMode == vcs.ModeGitlink:
		p.set(c.Path, Keep, "a nested repository: never deleted")
	case p.tooLarge[c.Path]:
		p.set(c.Path, Keep, "left out of "+p.label+" as larger than snapshot.max_file_size: never deleted")
	case !p.opts.Delete:
		p.set(c.Path, Keep, "not in "+p.label+": --delete removes it")
	default:
		p.set(c.Path, Delete, "not in "+p.label).held = vcs.TreeEntry{Name: path.Base(c.Path), Mode: c.OldMode, ID: c.OldID}
	}
}

// heldEntry is the safety checkpoint's file or link at rel, if any.
func (p *restorePlan) heldEntry(rel string) (vcs.TreeEntry, bool) {
	e, err := vcs.Lookup(p.s, p.cur, rel)
	if err != nil || e.IsDir() || e.Mode == vcs.ModeGitlink {
		return vcs.TreeEntry{}, false
	}
	return e, true
}

// checkSafe refuses a checkpoint path a restore must never write: one
// that climbs out of the workspace or into a .git directory (ctxgit
// writes no such tree; one from elsewhere might), or one this system
// cannot hold: on Windows a name made on Linux with a `\` (a separator
// there), a `:` (a stream) or a device name (SPEC §9.7).
func (p *restorePlan) checkSafe(rel string, symlink bool) error {
	els := strings.Split(rel, "/")
	for i, el := range els {
		if el == "" || el == "." || el == ".." || vcs.RefusedName(el, symlink && i == len(els)-1) {
			return spec.Invalid("checkpoint %s holds the path %q, which ctxgit never writes: nothing was restored", p.label, rel)
		}
		if vcs.UnwritableName(el) {
			return spec.Invalid("checkpoint %s holds the path %q, a name this system's files cannot have (Windows): nothing was restored", p.label, rel)
		}
	}
	return nil
}

// whyNotHeld says why the snapshot leaves out what is at rel now (SPEC
// §9.3), in the order the snapshot's rules apply.
func (p *restorePlan) whyNotHeld(rel string, fi fs.FileInfo) string {
	cfg := p.w.Config.Snapshot
	if p.excludes == nil {
		for _, pat := range cfg.SecretExcludes {
			p.secrets = append(p.secrets, ignore.New(ignore.FoldCase(ignore.ParsePatterns([]byte(pat), "", "secret"))))
		}
		p.excludes = ignore.New(ignore.ParsePatterns([]byte(strings.Join(cfg.Excludes, "\n")), "", "snapshot.excludes"))
	}
	// The snapshot matches each entry as it walks, so a directory's rule
	// covers everything below it.
	els := strings.Split(rel, "/")
	for i := range els {
		q := strings.Join(els[:i+1], "/")
		isDir := i < len(els)-1 || fi.IsDir()
		for j, m := range p.secrets {
			if m.Match(ignore.FoldPath(q), isDir) {
				return fmt.Sprintf("a secret (snapshot.secret_excludes %q)", cfg.SecretExcludes[j])
			}
		}
		if p.excludes.Match(q, isDir) {
			return "excluded by snapshot.excludes"
		}
	}
	if p.snap != nil {
		for _, s := range p.snap.Skipped {
			if r, ok := strings.CutPrefix(s, rel+": "); ok {
				return "unreadable (" + r + ")"
			}
		}
	}
	switch {
	case vcs.RefusedName(path.Base(rel), fi.Mode()&fs.ModeSymlink != 0):
		return "a name git refuses in a tree"
	case fi.Mode().IsRegular() && cfg.MaxFileSize > 0 && fi.Size() > int64(cfg.MaxFileSize):
		return fmt.Sprintf("larger than snapshot.max_file_size (%d bytes)", fi.Size())
	case !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir():
		return "not a regular file"
	}
	return "ignored (.gitignore, info/exclude or core.excludesFile)"
}

func kindOf(fi fs.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symlink"
	case fi.Mode().IsRegular():
		return "a file"
	}
	return "a special file"
}

// flattenTree adds every non-directory path below tree id to out.
func flattenTree(s vcs.Store, id vcs.Hash, prefix string, out map[string]bool) error {
	entries, err := vcs.ReadTree(s, id)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := prefix + "/" + e.Name
		if e.IsDir() {
			if err := flattenTree(s, e.ID, p, out); err != nil {
				return err
			}
			continue
		}
		out[p] = true
	}
	return nil
}

// verifyRestore checks, before anything is written, that every path to be
// replaced or deleted still holds what the safety checkpoint holds, so a
// file changed in between is never lost.
func (w *ws) verifyRestore(changes []Change, safety string) error {
	flags := w.FSFlags()
	for _, c := range changes {
		ok := true
		switch {
		case c.Action == Create:
			// Absent, or below a file or link that is deleted first: a
			// symlinked directory is not followed, so the files of the
			// directory it leads to are not taken for this path.
			_, err := w.lstatNoFollow(c.Path)
			ok = errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
		case c.Action != Write && c.Action != Delete, c.forced, c.replaceDir:
			continue
		default:
			ok = matchesEntry(w.Path(c.Path), c.held, flags)
		}
		if !ok {
			return spec.Conflict("%s changed after the safety checkpoint %s was taken: nothing was restored; run ctxgit restore again", safetext.Path(c.Path), safety)
		}
	}
	return nil
}

// lstatNoFollow is os.Lstat of a workspace path that follows no symlink
// on the way: a path below a link (or a file) does not exist, as far as a
// restore is concerned, whatever the link leads to.
func (w *ws) lstatNoFollow(rel string) (fs.FileInfo, error) {
	els := strings.Split(rel, "/")
	for i := 1; i < len(els); i++ {
		a := strings.Join(els[:i], "/")
		fi, err := os.Lstat(w.Path(a))
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, &fs.PathError{Op: "lstat", Path: w.Path(rel), Err: syscall.ENOTDIR}
		}
	}
	return os.Lstat(w.Path(rel))
}

// linkAbove is the first directory above rel that exists and is not a
// directory (a symlink, a file), or "" when every one is a directory or
// absent from some point down.
func (w *ws) linkAbove(rel string) string {
	els := strings.Split(rel, "/")
	for i := 1; i < len(els); i++ {
		a := strings.Join(els[:i], "/")
		fi, err := os.Lstat(w.Path(a))
		if err != nil {
			return ""
		}
		if !fi.IsDir() {
			return a
		}
	}
	return ""
}

// matchesEntry reports whether the file or link at abs is what a tree
// entry records, on a file system that may have no executable bit or no
// symlinks (then a link is a plain file holding its target).
func matchesEntry(abs string, e vcs.TreeEntry, flags vcs.FSFlags) bool {
	fi, err := os.Lstat(abs)
	if err != nil {
		return false
	}
	var data []byte
	switch {
	case e.Mode == vcs.ModeSymlink && fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return false
		}
		data = []byte(target)
	case restoreAsFile(flags, e.Mode) && fi.Mode().IsRegular():
		return fileHashes(abs, fi, e.ID)
	case (e.Mode == vcs.ModeFile || e.Mode == vcs.ModeExecutable) && fi.Mode().IsRegular():
		if !flags.NoFileMode && (fi.Mode()&0o100 != 0) != (e.Mode == vcs.ModeExecutable) {
			return false
		}
		return fileHashes(abs, fi, e.ID)
	default:
		return false
	}
	return vcs.HashObject(vcs.BlobObject, data) == e.ID
}

// fileHashes reports whether the regular file at abs (fi, from Lstat) has
// blob id id, reading it as a stream: a file of any size is checked in
// bounded memory. A file swapped for another since the Lstat is hashed
// as it is, and only a regular file is.
func fileHashes(abs string, fi fs.FileInfo, id vcs.Hash) bool {
	f, err := regfile.Open(abs) // no link followed, no FIFO waited on
	if err != nil {
		return false
	}
	defer f.Close()
	if f.Info().Size != fi.Size() {
		return false
	}
	hw := vcs.NewBlobHasher(fi.Size())
	if _, err := io.Copy(hw, f); err != nil {
		return false
	}
	return hw.Sum() == id
}

// applyRestore carries out a verified plan: removals first, then each
// file written atomically.
func (w *ws) applyRestore(ctx context.Context, s vcs.Store, changes []Change) error {
	flags := w.FSFlags()
	var emptied []string
	for _, c := range changes {
		if c.Action != Delete {
			continue
		}
		if err := workspace.ContextErr(ctx); err != nil {
			return err
		}
		if err := os.Remove(w.Path(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ioError(c.Path, err)
		}
		emptied = append(emptied, path.Dir(c.Path))
	}
	for _, c := range changes {
		if c.replaceDir {
			if err := removeEmptyDirs(w.Path(c.Path)); err != nil {
				return ioError(c.Path, fmt.Errorf("not replaced: %w", workspace.UnwrapPathError(err)))
			}
		}
	}
	// Git records no empty directories, so a directory whose last file was
	// deleted goes too, as with git; a non-empty one stays.
	slices.SortFunc(emptied, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range emptied {
		for ; d != "." && d != ""; d = path.Dir(d) {
			if os.Remove(w.Path(d)) != nil {
				break
			}
		}
	}
	for _, c := range changes {
		if c.Action != Create && c.Action != Write {
			continue
		}
		if err := workspace.ContextErr(ctx); err != nil {
			return err
		}
		abs := w.Path(c.Path)
		// A directory swapped for a link since the plan is neither
		// written through nor made below (MkdirAll follows links).
		if d := w.linkAbove(c.Path); d != "" {
			return ioError(c.Path, fmt.Errorf("not restored: %s is no longer a directory", safetext.Path(d)))
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return ioError(c.Path, err)
		}
		var err error
		switch {
		case c.want.Mode == vcs.ModeSymlink && !restoreAsFile(flags, c.want.Mode):
			var target []byte
			if target, err = vcs.ReadBlob(s, c.want.ID); err != nil {
				return fmt.Errorf("%s: reading it from the checkpoint: %w", c.Path, err)
			}
			if err = w.writeLinkAtomic(abs, string(target)); err != nil && !errors.Is(err, spec.ErrConflict) {
				err = ioError(c.Path, err)
			}
		default:
			mode := c.want.Mode
			if restoreAsFile(flags, mode) {
				mode = vcs.ModeFile
			}
			err = w.writeBlobFile(s, c, abs, restorePerm(abs, mode))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeBlobFile writes the checkpoint's blob for c to abs atomically,
// streamed from the store: memory stays bounded whatever the file's size
// (snapshot.max_file_size 0 lets any size in, issue 13 item 15). The
// content is checked against the blob's id before it is published.
func (w *ws) writeBlobFile(s vcs.Store, c Change, abs string, perm fs.FileMode) error {
	var r io.Reader
	var size int64
	if bs, ok := s.(vcs.BlobStreamer); ok {
		rc, n, err := bs.OpenBlob(c.want.ID)
		if err != nil {
			return fmt.Errorf("%s: reading it from the checkpoint: %w", c.Path, err)
		}
		defer rc.Close()
		r, size = rc, n
	} else {
		data, err := vcs.ReadBlob(s, c.want.ID)
		if err != nil {
			return fmt.Errorf("%s: reading it from the checkpoint: %w", c.Path, err)
		}
		r, size = bytes.NewReader(data), int64(len(data))
	}
	hw := vcs.NewBlobHasher(size)
	var readErr error
	check := func() error {
		if readErr != nil {
			return readErr
		}
		if hw.Sum() != c.want.ID {
			return fmt.Errorf("%s: reading it from the checkpoint: object %s does not hash to its id", c.Path, c.want.ID.Short())
		}
		return w.CheckHeld()
	}
	err := atomicfile.WriteFrom(abs, errReader{io.TeeReader(r, hw), &readErr, c.Path}, perm, check)
	if readErr != nil {
		return readErr
	}
	if err != nil {
		if errors.Is(err, spec.ErrConflict) {
			return err
		}
		return ioError(c.Path, err)
	}
	return nil
}

// errReader keeps the error of reading the checkpoint apart from errors
// writing the disk, which name the path differently.
type errReader struct {
	r    io.Reader
	err  *error
	path string
}

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		*e.err = fmt.Errorf("%s: reading it from the checkpoint: %w", e.path, err)
	}
	return n, err
}

// ioError names the path of a failure reading or writing the disk; it is
// exit 1 (docs/cli.md#restore), not bad input.
func ioError(rel string, err error) error {
	return fmt.Errorf("%s: %w", rel, workspace.UnwrapPathError(err))
}

// removeEmptyDirs removes a directory that holds only directories, deepest
// first; it fails, removing what it could, if a file is still in it.
func removeEmptyDirs(abs string) error {
	var dirs []string
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

// restorePerm keeps an existing file's permissions, with the execute bits
// set or cleared as the checkpoint records; a new file is 0644 or 0755.
func restorePerm(abs string, mode uint32) fs.FileMode {
	perm := fs.FileMode(0o644)
	if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	if mode == vcs.ModeExecutable {
		return perm | (perm&0o444)>>2
	}
	return perm &^ 0o111
}

// writeLinkAtomic replaces abs with a symlink to target: made under a
// temporary name beside it and renamed over it, so a reader sees the old
// entry or the link, never neither.
func (w *ws) writeLinkAtomic(abs, target string) error {
	dir := filepath.Dir(abs)
	for i := 0; ; i++ {
		tmp := filepath.Join(dir, fmt.Sprintf("%s.%d", atomicfile.TempName(filepath.Base(abs)), time.Now().UnixNano()+int64(i)))
		err := os.Symlink(target, tmp)
		if errors.Is(err, fs.ErrExist) && i < 10 {
			continue
		}
		if err != nil {
			return err
		}
		if err := w.CheckHeld(); err != nil {
			os.Remove(tmp)
			return err
		}
		if err := atomicfile.Rename(tmp, abs); err != nil {
			os.Remove(tmp)
			return err
		}
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
		return nil
	}
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
