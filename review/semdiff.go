package review

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/internal/linediff"
	"github.com/ctxgit/ctxgit/markdown"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// How a file's lines were counted (docs/design.md, "Diff and report").
const (
	LinesCounted   = "counted"   // a minimal line diff
	LinesEstimated = "estimated" // the diff cost too much: counts ignore moves
	LinesBinary    = "binary"    // a NUL byte in the first 8000 bytes of a side
	LinesTooLarge  = "too_large" // a side over MaxLineDiffBytes
	LinesSubmodule = "submodule" // a nested repository's commit, not a file
)

// MaxLineDiffBytes is the largest side of a modified file that is
// line-diffed; larger ones are reported as too large rather than slowing a
// diff down. Added and deleted files have their lines counted at any size:
// that costs one pass.
const MaxLineDiffBytes = 8 << 20

// FileDiff is a changed file with its line counts.
type FileDiff struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	From   string `json:"from,omitempty"`
	// Added and Removed count lines; both are 0 unless Lines is counted
	// or estimated.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Lines says how the lines were counted; "" when they were not asked
	// for.
	Lines string `json:"lines,omitempty"`
	// OldSize and NewSize are the sides' sizes in bytes (0 for a side that
	// does not exist), read with the lines.
	OldSize int64 `json:"old_size"`
	NewSize int64 `json:"new_size"`
	// sameContent is a rename or mode change: the blob is unchanged.
	sameContent bool
	// Patch is the file's unified patch, for the HTML report's files
	// (ReportOptions.Patches); "" unless asked for.
	Patch string `json:"-"`
	// src is where the patch is read from: the change and a store
	// holding both sides' blobs.
	src *patchSource
}

type patchSource struct {
	store  vcs.Store
	change vcs.Change
}

// FileTotals sums a list of FileDiff.
type FileTotals struct {
	Files   int `json:"files"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// Totals sums files' line counts.
func Totals(files []FileDiff) FileTotals {
	t := FileTotals{Files: len(files)}
	for _, f := range files {
		t.Added += f.Added
		t.Removed += f.Removed
	}
	return t
}

// FileDiffs lists the files changed between two checkpoint commits (from
// may be zero: everything in to is new), leaving out ctxgit's own outputs,
// with line counts when lines is true.
func FileDiffs(w *workspace.Workspace, from, to vcs.Hash, lines bool) ([]FileDiff, error) {
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, spec.NotFound("the workspace has no checkpoints")
	}
	changes, err := w.Changes(from, to)
	if err != nil {
		return nil, err
	}
	out := make([]FileDiff, 0, len(changes))
	for _, c := range changes {
		f := FileDiff{Path: c.Path, Status: c.Status, From: c.From}
		if lines {
			if err := countLines(store, c, &f); err != nil {
				return nil, fmt.Errorf("%s: %w", c.Path, err)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// countLines fills a FileDiff's counts from the two blobs of a change.
func countLines(store vcs.Store, c vcs.Change, f *FileDiff) error {
	if c.OldMode == vcs.ModeGitlink || c.NewMode == vcs.ModeGitlink {
		// git counts a submodule as its one "Subproject commit" line.
		f.Lines = LinesSubmodule
		if !c.OldID.IsZero() && c.OldID != c.NewID {
			f.Removed = 1
		}
		if !c.NewID.IsZero() && c.OldID != c.NewID {
			f.Added = 1
		}
		return nil
	}
	read := func(id vcs.Hash) ([]byte, error) {
		if id.IsZero() {
			return nil, nil
		}
		return vcs.ReadBlob(store, id)
	}
	a, err := read(c.OldID)
	if err != nil {
		return err
	}
	b, err := read(c.NewID)
	if err != nil {
		return err
	}
	f.OldSize, f.NewSize = int64(len(a)), int64(len(b))
	f.sameContent = c.OldID == c.NewID
	switch {
	case linediff.IsBinary(a) || linediff.IsBinary(b):
		f.Lines = LinesBinary
	case f.sameContent:
		f.Lines = LinesCounted // a rename or a mode change: no line differs
	case c.OldID.IsZero() || c.NewID.IsZero():
		f.Lines = LinesCounted
		f.Added, f.Removed = linediff.Lines(b), linediff.Lines(a)
	case len(a) > MaxLineDiffBytes || len(b) > MaxLineDiffBytes:
		f.Lines = LinesTooLarge
	default:
		n := linediff.Count(a, b)
		f.Added, f.Removed, f.Lines = n.Added, n.Removed, LinesCounted
		if !n.Exact {
			f.Lines = LinesEstimated
		}
	}
	return nil
}

// cpState is what one checkpoint holds, read for comparison: its YAML and
// its state files parsed from its tree.
type cpState struct {
	// ref is the checkpoint; nil for the working tree.
	ref       *workspace.Resolved
	task      *spec.TaskState
	openItems []string
	plan      *spec.Plan
	decisions []spec.Decision
	failures  []spec.FailureEntry
	problems  []error
	// bad marks the parts whose file did not parse: they are not
	// compared, so a broken file never reads as everything removed.
	bad struct{ plan, decisions, failures bool }
}

// resolvedName is SESSION:cp_NNN.
func resolvedName(r *workspace.Resolved) string {
	return r.Session + ":" + r.Checkpoint.Meta.CheckpointID
}

// readCPState reads a checkpoint's plan, decisions and failure log from its
// tree, at the paths the workspace's config names (the plan at the path
// the checkpoint recorded). A file that does not parse marks its part bad
// and adds a problem: an old checkpoint's bad file must not stop a diff.
func readCPState(w *workspace.Workspace, store vcs.Store, r *workspace.Resolved) (*cpState, error) {
	c, err := vcs.ReadCommit(store, r.Commit)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", resolvedName(r), err)
	}
	st := &cpState{ref: r, task: r.Checkpoint.Task, openItems: r.Checkpoint.OpenItems}
	planPath := r.Checkpoint.Plan.Source
	if planPath == "" {
		planPath = w.Config.Paths.Plan
	}
	if err := st.readTree(w, store, c.Tree, resolvedName(r)+":", planPath); err != nil {
		return nil, err
	}
	if st.plan == nil && !st.bad.plan && len(r.Checkpoint.Plan.Steps) > 0 {
		// The file was left out of the snapshot; the YAML's steps remain.
		st.plan = &spec.Plan{}
		for _, s := range r.Checkpoint.Plan.Steps {
			st.plan.Steps = append(st.plan.Steps, spec.Step{Number: s.Number, Name: s.Name, Status: s.Status})
		}
	}
	return st, nil
}

// readTree reads the plan (at planPath), the decisions log and the
// failure log from tree; a problem's file is named with prefix.
func (st *cpState) readTree(w *workspace.Workspace, store vcs.Store, tree vcs.Hash, prefix, planPath string) error {
	p := w.Config.Paths
	file := func(rel string) ([]byte, bool, error) {
		e, err := vcs.Lookup(store, tree, rel)
		if errors.Is(err, vcs.ErrObjectNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if e.IsDir() || e.Mode == vcs.ModeGitlink {
			return nil, false, nil
		}
		data, err := vcs.ReadBlob(store, e.ID)
		return data, err == nil, err
	}
	label := func(rel string) string { return prefix + rel }

	if src, ok, err := file(planPath); err != nil {
		return err
	} else if ok {
		plan, err := markdown.ParsePlan(label(planPath), src)
		if plan == nil && err != nil {
			// A plan without steps is still a plan; only an unreadable
			// one is a problem.
			st.problems = append(st.problems, err)
			st.bad.plan = true
		}
		st.plan = plan
	}

	if src, ok, err := file(p.Decisions); err != nil {
		return err
	} else if ok {
		ds, err := markdown.ParseDecisions(label(p.Decisions), src)
		if err != nil {
			st.problems = append(st.problems, err)
			st.bad.decisions = true
		}
		st.decisions = ds
	}

	failPath := p.FailureLog
	src, ok, err := file(failPath)
	if err == nil && !ok {
		failPath = p.FailureLogFallback
		src, ok, err = file(failPath)
	}
	if err != nil {
		return err
	}
	if ok {
		fs, err := markdown.ParseFailureLog(label(failPath), src)
		if err != nil {
			st.problems = append(st.problems, err)
			st.bad.failures = true
		}
		st.failures = fs
	}
	return nil
}

// Diff is what changed from one checkpoint to another (docs/cli.md#diff).
type Diff struct {
	// From is nil when To is compared with nothing (a session's first
	// checkpoint).
	From, To *workspace.Resolved
	// Worktree is set when the working tree is compared instead of To
	// (DiffWorktree): To is then nil.
	Worktree  bool
	Files     []FileDiff
	Task      []workspace.TaskChange
	Plan      PlanDiff
	Decisions []DecisionChange
	Failures  []FailureChange
	OpenItems []OpenItemChange
	// Problems are state files in either checkpoint that did not parse;
	// their parts are not compared.
	Problems []error
}

// PlanDiff is the plan's progress on both sides and its step changes.
type PlanDiff struct {
	FromDone  int          `json:"from_done"`
	FromTotal int          `json:"from_total"`
	ToDone    int          `json:"to_done"`
	ToTotal   int          `json:"to_total"`
	Steps     []StepChange `json:"steps"`
}

// Step change kinds.
const (
	StepAdded         = "added"
	StepRemoved       = "removed"
	StepStatusChanged = "status"  // the status changed (the text may have too)
	StepRenamed       = "renamed" // only the number or name changed
)

// StepChange is one plan step that is new, gone, or changed.
type StepChange struct {
	Change string `json:"change"`
	Number string `json:"number"`
	Name   string `json:"name"`
	// FromNumber and FromName are set when the step was renumbered or
	// renamed.
	FromNumber string `json:"from_number,omitempty"`
	FromName   string `json:"from_name,omitempty"`
	// From and To are the statuses; "" on the side where the step does
	// not exist.
	From spec.StepStatus `json:"from"`
	To   spec.StepStatus `json:"to"`
	// Reason is a failed step's reason.
	Reason string `json:"reason,omitempty"`
}

// Label is "3b. Name".
func (s StepChange) Label() string { return s.Number + ". " + s.Name }

// DecisionChange is a decision added to, or removed from, the log.
type DecisionChange struct {
	Change string `json:"change"` // added | removed
	spec.Decision
}

// FailureChange is a failure-log entry added or removed.
type FailureChange struct {
	Change string `json:"change"` // added | removed
	spec.FailureEntry
}

// OpenItemChange is an open item that appeared or went away.
type OpenItemChange struct {
	Change string `json:"change"` // opened | closed
	Text   string `json:"text"`
}

// Change kinds of lists.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ItemOpened    = "opened"
	ItemClosed    = "closed"
)

// DiffOptions choose what Diff computes.
type DiffOptions struct {
	// Lines counts lines per file (reads both blobs of every change).
	Lines bool
	// Semantic compares the state: task fields, plan, decisions,
	// failures, open items.
	Semantic bool
}

// DiffSides resolves what `diff` compares: fromName and toName in
// session, "" for the defaults @~1 and @. When both are defaults and the
// session has one checkpoint, from is nil (everything in it is new).
func DiffSides(w *workspace.Workspace, fromName, toName, session string) (from, to *workspace.Resolved, err error) {
	defaults := fromName == "" && toName == ""
	if fromName == "" {
		fromName = "@~1"
	}
	if toName == "" {
		toName = "@"
	}
	if to, err = w.ResolveRead(toName, session); err != nil {
		return nil, nil, err
	}
	from, err = w.ResolveRead(fromName, session)
	switch {
	case err == nil:
	case defaults && errors.Is(err, spec.ErrNotFound):
		from = nil
	default:
		return nil, nil, err
	}
	return from, to, nil
}

// DiffCheckpoints compares two checkpoints of w (from may be nil:
// everything in to is new).
func DiffCheckpoints(w *workspace.Workspace, from, to *workspace.Resolved, o DiffOptions) (*Diff, error) {
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, spec.NotFound("the workspace has no checkpoints")
	}
	var fromID vcs.Hash
	if from != nil {
		fromID = from.Commit
	}
	d := &Diff{From: from, To: to}
	if d.Files, err = FileDiffs(w, fromID, to.Commit, o.Lines); err != nil {
		return nil, err
	}
	if !o.Semantic {
		return d, nil
	}
	var a *cpState
	if from != nil {
		if a, err = readCPState(w, store, from); err != nil {
			return nil, err
		}
	}
	b, err := readCPState(w, store, to)
	if err != nil {
		return nil, err
	}
	compareStates(d, a, b)
	return d, nil
}

// compareStates fills d's semantic parts from a (nil: nothing) to b.
func compareStates(d *Diff, a, b *cpState) {
	if a == nil {
		a = &cpState{}
	} else {
		d.Problems = append(d.Problems, a.problems...)
	}
	d.Problems = append(d.Problems, b.problems...)
	d.Task = workspace.TaskChanges(a.task, b.task)
	d.Plan = PlanDiff{Steps: []StepChange{}}
	if !a.bad.plan && !b.bad.plan {
		d.Plan = comparePlans(a.plan, b.plan)
	}
	d.Decisions = []DecisionChange{}
	if !a.bad.decisions && !b.bad.decisions {
		d.Decisions = compareDecisions(a.decisions, b.decisions)
	}
	d.Failures = []FailureChange{}
	if !a.bad.failures && !b.bad.failures {
		d.Failures = compareFailures(a.failures, b.failures)
	}
	d.OpenItems = compareOpenItems(a.openItems, b.openItems)
}

// fold is the form two texts are compared in: case and runs of whitespace
// do not make a step, decision or item new.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// comparePlans matches steps in three passes — same number and name, then
// same name (renumbered), then same number (renamed) — so a step keeps its
// identity through an edit of either; what is left is added or removed.
func comparePlans(a, b *spec.Plan) PlanDiff {
	var as, bs []spec.Step
	var pd PlanDiff
	if a != nil {
		as = a.Steps
		pd.FromDone, pd.FromTotal = a.Progress()
	}
	if b != nil {
		bs = b.Steps
		pd.ToDone, pd.ToTotal = b.Progress()
	}
	match := make([]int, len(bs)) // index into as, or -1
	used := make([]bool, len(as))
	for i := range match {
		match[i] = -1
	}
	for _, key := range []func(spec.Step) string{
		func(s spec.Step) string { return s.Number + "\x00" + fold(s.Name) },
		func(s spec.Step) string { return fold(s.Name) },
		func(s spec.Step) string { return s.Number },
	} {
		byKey := map[string][]int{}
		for i, s := range as {
			if !used[i] {
				byKey[key(s)] = append(byKey[key(s)], i)
			}
		}
		for j, s := range bs {
			if match[j] >= 0 {
				continue
			}
			if c := byKey[key(s)]; len(c) > 0 {
				match[j], used[c[0]] = c[0], true
				byKey[key(s)] = c[1:]
			}
		}
	}
	pd.Steps = []StepChange{}
	for j, s := range bs {
		ch := StepChange{Number: s.Number, Name: s.Name, To: s.Status}
		if s.Status == spec.StepFailed {
			ch.Reason = s.FailReason
		}
		if match[j] < 0 {
			ch.Change = StepAdded
			pd.Steps = append(pd.Steps, ch)
			continue
		}
		o := as[match[j]]
		ch.From = o.Status
		if o.Number != s.Number {
			ch.FromNumber = o.Number
		}
		if o.Name != s.Name {
			ch.FromName = o.Name
		}
		switch {
		case o.Status != s.Status:
			ch.Change = StepStatusChanged
		case ch.FromNumber != "" || ch.FromName != "":
			ch.Change = StepRenamed
		default:
			continue
		}
		pd.Steps = append(pd.Steps, ch)
	}
	for i, s := range as {
		if !used[i] {
			pd.Steps = append(pd.Steps, StepChange{Change: StepRemoved, Number: s.Number, Name: s.Name, From: s.Status})
		}
	}
	return pd
}

// multisetDiff returns the items of b that a lacks and the items of a that
// b lacks, counting repeats, in their own order.
func multisetDiff(na, nb int, keyA, keyB func(int) string) (added, removed []int) {
	return unmatched(na, keyA, nb, keyB), unmatched(nb, keyB, na, keyA)
}

// unmatched returns the items of b, in order, left over once each item of
// a has matched one of b with the same key.
func unmatched(na int, keyA func(int) string, nb int, keyB func(int) string) []int {
	have := map[string]int{}
	for i := range na {
		have[keyA(i)]++
	}
	var out []int
	for j := range nb {
		k := keyB(j)
		if have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, j)
	}
	return out
}

// compareDecisions matches decisions by their text, as a checkpoint's
// new_decisions does: ids are positions and shift when the log is edited.
func compareDecisions(a, b []spec.Decision) []DecisionChange {
	return compareLists(a, b, func(d spec.Decision) string { return fold(d.What) },
		func(added bool, d spec.Decision) DecisionChange {
			return DecisionChange{pick(added, ChangeAdded, ChangeRemoved), d}
		})
}

// compareFailures matches entries by time, type, action and summary, so
// an entry whose details were edited is not new.
func compareFailures(a, b []spec.FailureEntry) []FailureChange {
	return compareLists(a, b, failureKey,
		func(added bool, f spec.FailureEntry) FailureChange {
			return FailureChange{pick(added, ChangeAdded, ChangeRemoved), f}
		})
}

func compareOpenItems(a, b []string) []OpenItemChange {
	return compareLists(a, b, fold,
		func(added bool, s string) OpenItemChange {
			return OpenItemChange{pick(added, ItemOpened, ItemClosed), s}
		})
}

// compareLists lists what b adds to a, then what it drops, items matched
// as multisets by key: change builds each entry, told whether it is an
// addition.
func compareLists[T, C any](a, b []T, key func(T) string, change func(added bool, item T) C) []C {
	add, rm := multisetDiff(len(a), len(b), func(i int) string { return key(a[i]) }, func(j int) string { return key(b[j]) })
	out := []C{}
	for _, j := range add {
		out = append(out, change(true, b[j]))
	}
	for _, i := range rm {
		out = append(out, change(false, a[i]))
	}
	return out
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
