package review

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// Report is a session's history as a pull request needs it (docs/cli.md#report):
// its checkpoints oldest first, and what changed from Base to Head.
type Report struct {
	// Scope is what the report covers: ScopeBranch, the branch HEAD is
	// on against FilesBase (given with --base, or the default branch
	// found), or ScopeSession, the session alone, ScopeWhy saying why.
	Scope, ScopeWhy string
	// Branch is the branch HEAD is on, for a branch report.
	Branch string
	// BaseFound is true when the base is the default branch found rather
	// than one --base named.
	BaseFound bool
	Session   string
	// Sessions are the sessions merged with AllSessions, in the order of
	// their first checkpoint; just Session otherwise.
	Sessions []string
	// Title and Goal are the head's plan's (the goal falls back to the
	// task state's); Checklist its steps.
	Title, Goal string
	Checklist   []spec.Step
	// Open are the open items at the head.
	Open []string
	// FilesBase is set with --base: Files are then the commits from the
	// merge base of the repository's HEAD and that ref to HEAD, as the
	// pull request shows them; Uncommitted the working tree's changes
	// against HEAD now, as git status shows them; Commits the branch's
	// commits.
	FilesBase   *ReportBase
	Uncommitted []FileDiff
	Commits     []ReportCommit
	// Base is where changes are counted from: the --since checkpoint, or
	// the session's first checkpoint. Head is the session's newest; it is
	// Base itself when nothing came after.
	Base, Head *workspace.Resolved
	// Since is true when Base was given: it is then not in Checkpoints.
	Since       bool
	Checkpoints []ReportRow

	Files     []FileDiff
	Task      []workspace.TaskChange
	Plan      PlanDiff // Base's and Head's progress; Steps is empty, see Steps
	Steps     []ReportStep
	Decisions []ReportDecision
	Failures  []ReportFailure
	OpenItems []ReportOpenItem
	// Problems are state files that did not parse, once each.
	Problems []error
	// Names are how the report names each of Sessions to a reader.
	Names map[string]SessionLabel
	// Instructions are the user's instructions, oldest first, as the
	// checkpoints' threads recorded them.
	Instructions []ReportInstruction
	// Readings are every context reading ctxgit has of the sessions in
	// the report's span: the checkpoints' and the hooks' (the status
	// line's too), oldest first.
	Readings []ReportReading
	// Zone is the zone times are shown in; nil is the local zone.
	Zone *time.Location
}

// ReportInstruction is one instruction of the user's and the first
// checkpoint that recorded it.
type ReportInstruction struct {
	Text string    `json:"text"`
	At   string    `json:"checkpoint_id"`
	When time.Time `json:"when"`
}

// ReportReading is one context reading: when, how full, from where.
type ReportReading struct {
	Session     string    `json:"session"`
	At          time.Time `json:"at"`
	Utilization float64   `json:"utilization"`
	Tokens      int64     `json:"tokens,omitempty"`
	Window      int64     `json:"window,omitempty"`
	Source      string    `json:"source"`
	// Checkpoint is the checkpoint that recorded it; "" for a hook's
	// reading.
	Checkpoint string `json:"checkpoint_id,omitempty"`
}

// ReportRow is one checkpoint of the timeline and what it changed since
// the one before it.
type ReportRow struct {
	Session      string          `json:"session"`
	CheckpointID string          `json:"checkpoint_id"`
	Commit       string          `json:"commit"`
	CreatedAt    time.Time       `json:"created_at"`
	Trigger      string          `json:"trigger"`
	TokenUsage   spec.TokenUsage `json:"token_usage"`
	Topic        string          `json:"topic"`
	// Branch is the branch HEAD named when the checkpoint was taken.
	Branch string `json:"branch,omitempty"`
	// Start marks the session's first checkpoint: nothing came before it,
	// so it changed nothing.
	Start     bool       `json:"session_start"`
	PlanDone  int        `json:"plan_done"`
	PlanTotal int        `json:"plan_total"`
	Files     FileTotals `json:"files"`
	Decisions int        `json:"decisions_added"`
	Failures  int        `json:"failures_added"`
	Steps     int        `json:"step_changes"`
	// Paths are the files it changed, for the HTML timeline's hover;
	// --json lists files for the whole range instead.
	Paths []string `json:"-"`
	// Prompts are the user's instructions its thread holds, in order.
	Prompts []string `json:"-"`
}

// ReportStep is a plan step change and the checkpoint that recorded it.
type ReportStep struct {
	At string `json:"checkpoint_id"`
	StepChange
}

// ReportDecision is a decision change and the first checkpoint that shows
// it.
type ReportDecision struct {
	At string `json:"checkpoint_id"`
	DecisionChange
}

// ReportFailure is a failure change and the first checkpoint that shows it.
type ReportFailure struct {
	At string `json:"checkpoint_id"`
	FailureChange
	// ResolvedBy says what resolved it (SPEC §5.6: "step 2 marked done",
	// "marked resolved"); "" while it is open.
	ResolvedBy string `json:"resolved_by,omitempty"`
}

// ReportOpenItem is an open-item change and the first checkpoint that
// shows it.
type ReportOpenItem struct {
	At string `json:"checkpoint_id"`
	OpenItemChange
}

// ReportOptions choose a report's session and start.
type ReportOptions struct {
	Session string
	// Since names the checkpoint after which the timeline starts (a name
	// as docs/cli.md#show gives them); "" for the session's start.
	Since string
	// Base is a git ref of the repository: files are then listed against
	// its merge base with HEAD (docs/cli.md#report).
	Base string
	// AllSessions merges the sessions that worked on HEAD's branch, in
	// time order.
	AllSessions bool
	// SessionNamed is true when Session was named (--session): a branch
	// report then keeps to it rather than merging every session of the
	// branch.
	SessionNamed bool
	// Patches keeps each file's patch (FileDiff.Patch), for the HTML
	// page.
	Patches bool
}

// ChangeExisting marks a decision or failure recorded before the range's
// first checkpoint and still in the log at its head.
const ChangeExisting = "existing"

// BuildReport reads a session's checkpoints of w and compares them. It
// writes nothing and takes no lock. Without Base, on a branch other than
// the repository's default branch, the report is that branch's against
// the default branch, as its pull request would be, with every session
// whose checkpoints fall in the branch's span (docs/cli.md#report).
func BuildReport(w *workspace.Workspace, o ReportOptions) (*Report, error) {
	if o.AllSessions && o.Since != "" {
		return nil, spec.Usage("--all-sessions and --since cannot be used together")
	}
	base, why := o.Base, ""
	found := false
	if base == "" {
		base, why = reportScope(w)
		found = base != ""
	}
	var r *Report
	var err error
	switch {
	case found && !o.SessionNamed && o.Since == "":
		// Every session of the branch: work done before the host session
		// is the pull request's too.
		var since time.Time
		if since, err = branchStart(w, base); err != nil {
			return nil, err
		}
		if r, err = reportAllSessions(w, o, since); spec.ExitCode(err) == spec.ExitNotFound {
			r, err = reportSession(w, o) // none in the branch's span: this one
		}
	case o.AllSessions:
		var since time.Time
		if base != "" {
			// Sessions that ended before the branch began did not touch it.
			if since, err = branchStart(w, base); err != nil {
				return nil, err
			}
		}
		r, err = reportAllSessions(w, o, since)
	default:
		r, err = reportSession(w, o)
	}
	if err != nil {
		return nil, err
	}
	r.Zone = time.Local
	r.Scope, r.ScopeWhy = ScopeSession, why
	nameSessions(w, r)
	if base != "" {
		r.Scope, r.BaseFound = ScopeBranch, found
		r.Branch = vcs.HeadBranch(w.Repo.GitDir)
		if err := filesAgainstBase(w, r, base); err != nil {
			return nil, err
		}
	}
	r.Instructions = instructions(r.Checkpoints, len(r.Sessions) > 1)
	r.Readings = readings(w, r)
	sortFailures(r.Failures)
	if o.Patches {
		r.fillPatches()
	}
	return r, nil
}

// reportSession reports one session.
func reportSession(w *workspace.Workspace, o ReportOptions) (*Report, error) {
	entries, err := w.Log(o.Session, 0) // newest first
	if err != nil {
		return nil, err
	}
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	r := &Report{Session: o.Session, Sessions: []string{o.Session}}
	var base *workspace.Resolved
	if o.Since != "" {
		base, err = w.ResolveRead(o.Since, o.Session)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(entries, func(e workspace.Entry) bool { return e.Commit == base.Commit })
		if i < 0 {
			return nil, spec.NotFound("checkpoint %s is not in session %s", o.Since, o.Session)
		}
		entries = entries[:i]
		r.Since = true
	}
	slices.Reverse(entries)

	var baseState, prev *cpState
	if base != nil {
		if baseState, err = readCPState(w, store, base); err != nil {
			return nil, err
		}
		prev = baseState
	}
	first := map[string]string{} // change key → checkpoint id where it first shows
	note := func(key, at string) {
		if _, ok := first[key]; !ok {
			first[key] = at
		}
	}
	for _, e := range entries {
		cp, err := workspace.ReadCheckpointAt(store, e.Commit)
		if err != nil {
			return nil, err
		}
		cur, err := readCPState(w, store, &workspace.Resolved{Session: o.Session, Commit: e.Commit, Checkpoint: cp})
		if err != nil {
			return nil, err
		}
		id := cp.Meta.CheckpointID
		row := ReportRow{
			Session: o.Session, CheckpointID: id, Commit: e.Commit.String(), CreatedAt: cp.Meta.CreatedAt.UTC(),
			Trigger: cp.Meta.Trigger, TokenUsage: cp.Meta.TokenUsage, Topic: safetext.Line(string(cp.Working.Topic)),
			PlanDone: cp.Plan.Done, PlanTotal: cp.Plan.Total, Branch: cp.Meta.Branch, Prompts: userPrompts(cp.Thread),
		}
		if prev == nil {
			row.Start = true
			baseState = cur
		} else {
			d := &Diff{}
			compareStates(d, prev, cur)
			files, err := reportFiles(w, prev.ref.Commit, cur.ref)
			if err != nil {
				return nil, err
			}
			row.Files = Totals(files)
			for _, f := range files {
				row.Paths = append(row.Paths, f.Path)
			}
			row.Decisions = countChange(len(d.Decisions), func(i int) bool { return d.Decisions[i].Change == ChangeAdded })
			row.Failures = countChange(len(d.Failures), func(i int) bool { return d.Failures[i].Change == ChangeAdded })
			row.Steps = len(d.Plan.Steps)
			for _, s := range d.Plan.Steps {
				r.Steps = append(r.Steps, ReportStep{id, s})
			}
			for _, c := range d.Decisions {
				note("d"+c.Change+decisionKey(c.Decision), id)
			}
			for _, c := range d.Failures {
				note("f"+c.Change+failureKey(c.FailureEntry), id)
			}
			for _, c := range d.OpenItems {
				note("o"+c.Change+fold(c.Text), id)
			}
		}
		r.addProblems(cur.problems)
		r.Checkpoints = append(r.Checkpoints, row)
		prev = cur
	}
	r.Base, r.Head = baseState.ref, prev.ref
	r.addProblems(baseState.problems)

	if r.Files, err = reportFiles(w, r.Base.Commit, r.Head); err != nil {
		return nil, err
	}
	d := r.setRangeChanges(baseState, prev)
	at := func(key string) string {
		if id, ok := first[key]; ok {
			return id
		}
		return r.Head.Checkpoint.Meta.CheckpointID
	}
	for _, c := range d.Decisions {
		r.Decisions = append(r.Decisions, ReportDecision{at("d" + c.Change + decisionKey(c.Decision)), c})
	}
	for _, c := range d.Failures {
		r.Failures = append(r.Failures, ReportFailure{At: at("f" + c.Change + failureKey(c.FailureEntry)), FailureChange: c})
	}
	for _, c := range d.OpenItems {
		r.OpenItems = append(r.OpenItems, ReportOpenItem{at("o" + c.Change + fold(c.Text)), c})
	}
	if !r.Since && len(r.Checkpoints) > 0 {
		// What the log held at the first checkpoint was recorded before
		// it: it belongs in the report as much as what came after.
		r.Decisions = append(existingDecisions(baseState, prev, r.Base), r.Decisions...)
		r.Failures = append(existingFailures(baseState, prev, r.Base), r.Failures...)
	}
	r.setHeadFacts(prev)
	r.Failures = resolvedAsAt(r.Failures, prev)
	return r, nil
}

// setRangeChanges sets the task and plan changes from the report's first
// state to its last (the steps are listed per checkpoint instead), and
// returns the whole comparison for the lists.
func (r *Report) setRangeChanges(from, to *cpState) *Diff {
	d := &Diff{}
	compareStates(d, from, to)
	r.Task, r.Plan = d.Task, d.Plan
	r.Plan.Steps = nil
	return d
}

func countChange(n int, ok func(int) bool) int {
	c := 0
	for i := range n {
		if ok(i) {
			c++
		}
	}
	return c
}

func (r *Report) addProblems(ps []error) {
	for _, p := range ps {
		if !slices.ContainsFunc(r.Problems, func(q error) bool { return q.Error() == p.Error() }) {
			r.Problems = append(r.Problems, p)
		}
	}
}

var statusWord = map[string]string{vcs.Added: "added", vcs.Modified: "modified", vcs.Deleted: "deleted", vcs.Renamed: "renamed", StatusUntracked: "untracked"}

// StatSummary is git's --stat summary line, without its leading space:
// "3 files changed, 4 insertions(+), 2 deletions(-)". As in git, a zero
// count is left out unless both are zero.
func StatSummary(t FileTotals) string {
	if t.Files == 0 {
		return "0 files changed"
	}
	s := plural(t.Files, "file") + " changed"
	if t.Added > 0 || t.Removed == 0 {
		s += fmt.Sprintf(", %d insertion%s(+)", t.Added, pluralS(t.Added))
	}
	if t.Removed > 0 || t.Added == 0 {
		s += fmt.Sprintf(", %d deletion%s(-)", t.Removed, pluralS(t.Removed))
	}
	return s
}

// StepChangeText is one line for a step change: "2. Name: pending →
// done", "4. Name: added (pending)", "3. Name: in_progress → failed
// (reason)".
func StepChangeText(s StepChange) string {
	t := s.Label()
	switch s.Change {
	case StepAdded:
		t += ": added (" + string(s.To) + ")"
	case StepRemoved:
		t += ": removed (was " + string(s.From) + ")"
	case StepStatusChanged:
		t += ": " + string(s.From) + " → " + string(s.To)
	}
	switch {
	case s.FromName != "":
		was := s.FromNumber
		if was == "" {
			was = s.Number
		}
		t += " (was " + was + ". " + s.FromName + ")"
	case s.FromNumber != "":
		t += " (was step " + s.FromNumber + ")"
	}
	if s.Reason != "" && s.Change != StepRemoved {
		t += ": " + s.Reason
	}
	return safetext.Line(t) // names and reasons come from the plan
}

// DecisionText is "d_003 What — why: Why".
func DecisionText(d spec.Decision) string {
	t := d.ID + " " + safetext.Line(d.What)
	if d.Why != "" {
		t += " — why: " + safetext.Line(d.Why)
	}
	return t
}

// FailureText is "2026-11-22T10:03:00Z · Type → Action: summary", with
// the parts an entry has.
func FailureText(f spec.FailureEntry) string {
	var head []string
	if !f.When.IsZero() {
		head = append(head, stamp(f.When))
	}
	if f.Type != "" || f.Action != "" {
		ta := string(f.Type)
		if f.Action != "" {
			ta = strings.TrimSpace(ta + " → " + string(f.Action))
		}
		head = append(head, ta)
	}
	t := safetext.Line(f.Summary)
	if len(head) > 0 {
		t = strings.Join(head, " · ") + ": " + t
	}
	return t
}

func failureKey(f spec.FailureEntry) string {
	return f.When.UTC().String() + "\x00" + string(f.Type) + "\x00" + string(f.Action) + "\x00" + fold(f.Summary)
}

func removedPrefix(change string) string {
	if change == ChangeRemoved {
		return "removed: "
	}
	return ""
}

// rowChanges summarises what a checkpoint changed since the one before.
func rowChanges(c ReportRow) string {
	if c.Start {
		return "session start"
	}
	var parts []string
	if c.Files.Files > 0 {
		parts = append(parts, fmt.Sprintf("%s +%d -%d", plural(c.Files.Files, "file"), c.Files.Added, c.Files.Removed))
	}
	if c.Decisions > 0 {
		parts = append(parts, plural(c.Decisions, "decision"))
	}
	if c.Failures > 0 {
		parts = append(parts, plural(c.Failures, "failure"))
	}
	if c.Steps > 0 {
		parts = append(parts, plural(c.Steps, "step change"))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// usageText is "81% (162k/200k tokens, host)", or "unknown".
func usageText(u spec.TokenUsage) string {
	if u.Source == "" {
		return "unknown"
	}
	t := fmt.Sprintf("%.0f%%", u.Utilization*100)
	if u.InputTokens > 0 && u.ContextWindow > 0 {
		return fmt.Sprintf("%s (%s/%s tokens, %s)", t, kTokens(u.InputTokens), kTokens(u.ContextWindow), u.Source)
	}
	return t + " (" + u.Source + ")"
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func plural(n int, word string) string { return spec.Plural(n, word) }

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return code(safetext.Line(s))
}

// code wraps text in a code span long enough for the backticks it holds.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// cell makes text safe in a table cell: one line, pipes escaped.
func cell(s string) string { return cellEscape(safetext.Line(s)) }

// cellEscape escapes pipes, which end a table cell even inside a code
// span (GFM).
func cellEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// kTokens renders a token count as the gauge and the recovery block do
// (workspace's kTokens): "12k" from 1,000 up, rounded to the nearest
// thousand.
func kTokens(n int64) string {
	if n >= 1000 {
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprint(n)
}

// truncateRunes cuts s to n runes, the last an ellipsis, as checkpoint
// topics are cut in workspace.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
