package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// Each In type is a tool's arguments, each Out its structured result;
// the SDK derives their JSON Schemas from the fields and jsonschema tags.
// Result fields keep sorted key order, as the CLI's --json does.

type (
	noArgs     struct{}
	decideArgs struct {
		Text string `json:"text" jsonschema:"the decision, one line"`
		Why  string `json:"why,omitempty" jsonschema:"the reason"`
	}
	failArgs struct {
		Text    string `json:"text" jsonschema:"what failed, one line"`
		Type    string `json:"type,omitempty" jsonschema:"the failure type (as ctxgit fail --type takes it); none for an unclassified failure"`
		Action  string `json:"action,omitempty" jsonschema:"Retry, Pivot, Escalate or Abort; none when not chosen yet"`
		Lesson  string `json:"lesson,omitempty" jsonschema:"what to remember"`
		Details string `json:"details,omitempty" jsonschema:"more text for the entry"`
	}
	failResolvedArgs struct {
		ID string `json:"id,omitempty" jsonschema:"the failure's id, f_NNN or its number; none for the newest not resolved"`
	}
	planMarkArgs struct {
		Step   string `json:"step" jsonschema:"the step's number as the plan shows it (3, 3b)"`
		Status string `json:"status" jsonschema:"done, in-progress, pending or failed"`
		Reason string `json:"reason,omitempty" jsonschema:"why it failed (required for failed)"`
	}
	stateSetArgs struct {
		Field string `json:"field" jsonschema:"goal, status, current_phase, next_action, task_id, session_id or state_confidence"`
		Value string `json:"value" jsonschema:"the new value"`
	}
	stateGetArgs struct {
		Field string `json:"field" jsonschema:"a task-state field, e.g. next_action or completed_steps"`
	}
	checkpointArgs struct {
		Message string `json:"message,omitempty" jsonschema:"what is going on, in a line or two"`
		Next    string `json:"next,omitempty" jsonschema:"the next action (default: from the task state or the plan)"`
	}
	recoverArgs struct {
		Checkpoint string `json:"checkpoint,omitempty" jsonschema:"a checkpoint name (cp_003, @~1); default the session's newest"`
		Budget     int    `json:"budget,omitempty" jsonschema:"block size in characters (default: recovery.budget_chars)"`
	}
	logArgs struct {
		MaxCount int `json:"max_count,omitempty" jsonschema:"show at most this many (default all)"`
	}
	showArgs struct {
		Checkpoint string `json:"checkpoint,omitempty" jsonschema:"a checkpoint name (cp_003, @, @~1); default the session's newest"`
	}
	diffArgs struct {
		From string `json:"from,omitempty" jsonschema:"the older checkpoint (default @~1, the previous)"`
		To   string `json:"to,omitempty" jsonschema:"the newer checkpoint (default @, the newest)"`
	}
	reportArgs struct {
		Since string `json:"since,omitempty" jsonschema:"start after this checkpoint (default: the session's first)"`
	}
)

type (
	decideResult struct {
		Decision *spec.Decision `json:"decision"`
		Path     string         `json:"path"`
	}
	failResult struct {
		Failure *spec.FailureEntry `json:"failure"`
		ID      string             `json:"id"`
		Path    string             `json:"path"`
	}
	failResolvedResult struct {
		AlreadyResolved bool                       `json:"already_resolved"`
		Failure         *taskstate.ResolvedFailure `json:"failure"`
		Path            string                     `json:"path"`
	}
	planResult struct {
		CurrentStep string     `json:"current_step,omitempty"`
		Path        string     `json:"path"`
		Plan        *spec.Plan `json:"plan"`
	}
	// planMarkResult is plan_mark's result, as `ctxgit plan mark --json`:
	// the plan, and the failures marking the step done resolved.
	planMarkResult struct {
		CurrentStep string                      `json:"current_step,omitempty"`
		Path        string                      `json:"path"`
		Plan        *spec.Plan                  `json:"plan"`
		Resolved    []taskstate.ResolvedFailure `json:"resolved"`
	}
	stateSetResult struct {
		Field string          `json:"field"`
		Path  string          `json:"path"`
		State *spec.TaskState `json:"state"`
	}
	stateGetResult struct {
		Field  string   `json:"field"`
		Values []string `json:"values"`
	}
	checkpointResult struct {
		CheckpointID string   `json:"checkpoint_id"`
		Commit       string   `json:"commit"`
		Files        int      `json:"files"`
		FilesChanged int      `json:"files_changed"`
		Problems     []string `json:"problems"`
		Ref          string   `json:"ref"`
		Session      string   `json:"session"`
	}
	recoverResult struct {
		Block        string `json:"block"`
		CheckpointID string `json:"checkpoint_id,omitempty"`
		Commit       string `json:"commit,omitempty"`
		Marked       bool   `json:"marked"`
		Note         string `json:"note"`
		Session      string `json:"session,omitempty"`
	}
	logEntry struct {
		CheckpointID string `json:"checkpoint_id"`
		Commit       string `json:"commit"`
		CreatedAt    string `json:"created_at"`
		Session      string `json:"session"`
		Subject      string `json:"subject"`
		Trigger      string `json:"trigger"`
		// Utilization is the context fill, 0 to 1; absent when unknown.
		Utilization *float64 `json:"utilization,omitempty"`
	}
	logResult struct {
		Checkpoints []logEntry `json:"checkpoints"`
		Session     string     `json:"session"`
	}
	showResult struct {
		Checkpoint *spec.Checkpoint `json:"checkpoint"`
		Commit     string           `json:"commit"`
		Session    string           `json:"session"`
	}
	checkpointRef struct {
		CheckpointID string `json:"checkpoint_id"`
		Commit       string `json:"commit"`
		Session      string `json:"session"`
	}
	taskChange struct {
		Field string `json:"field"`
		From  string `json:"from"`
		To    string `json:"to"`
	}
	diffResult struct {
		Decisions []review.DecisionChange `json:"decisions"`
		Failures  []review.FailureChange  `json:"failures"`
		Files     []review.FileDiff       `json:"files"`
		From      *checkpointRef          `json:"from"`
		OpenItems []review.OpenItemChange `json:"open_items"`
		Plan      review.PlanDiff         `json:"plan"`
		Problems  []string                `json:"problems"`
		Task      []taskChange            `json:"task"`
		To        *checkpointRef          `json:"to"`
		Totals    review.FileTotals       `json:"totals"`
	}
	reportResult struct {
		Markdown string `json:"markdown"`
		Session  string `json:"session"`
		Title    string `json:"title"`
	}
)

// The tools' descriptions name their CLI twin: docs/cli.md#NAME says
// what each does in full.
func (s *Server) addTools() {
	add(s, tool{name: "status", title: "Where the work stands", read: true,
		description: "Where the work stands: session, context use, plan step, next action, last failure, newest checkpoint (what `ctxgit` alone prints). Read only."},
		s.status)
	add(s, tool{name: "plan", title: "Read the plan", read: true,
		description: "The parsed plan: goal, steps with their status, the current step (ctxgit plan). Read only."},
		func(_ context.Context, c *call, _ noArgs) (planResult, string, error) {
			p, path, err := taskstate.ReadPlan(c.w)
			if err != nil {
				return planResult{}, "", err
			}
			out := planResult{Path: path, Plan: p}
			if cur := p.Current(); cur != nil {
				out.CurrentStep = cur.Number
			}
			return out, taskstate.RenderPlan(p), nil
		})
	add(s, tool{name: "plan_mark", title: "Mark a plan step", touches: []string{PlanURI},
		description: "Mark a plan step done, in-progress, pending or failed (failed needs reason); only that line of the plan changes (ctxgit plan mark STEP STATUS). Done also resolves the failures recorded against the step, and says which."},
		func(_ context.Context, c *call, in planMarkArgs) (planMarkResult, string, error) {
			status, err := taskstate.ParseStepStatus(in.Status, in.Reason)
			if err != nil {
				return planMarkResult{}, "", err
			}
			r, err := taskstate.Mark(c.w, in.Step, status, in.Reason)
			if err != nil {
				return planMarkResult{}, "", err
			}
			out := planMarkResult{Path: c.w.Config.Paths.Plan, Plan: r.Plan, Resolved: nonNil(r.Resolved)}
			if cur := r.Plan.Current(); cur != nil {
				out.CurrentStep = cur.Number
			}
			text := fmt.Sprintf("step %s marked %s in %s\n", safetext.Line(in.Step), status, out.Path) + taskstate.RenderPlan(r.Plan)
			// Done resolves the step's failures (SPEC §5.6): said as the
			// CLI says it, so the agent knows they left the block.
			for _, f := range r.Resolved {
				text += fmt.Sprintf("resolved %s in %s: %s\n", f.ID, r.LogPath, safetext.Line(f.Summary))
			}
			return out, text, nil
		})
	add(s, tool{name: "decide", title: "Record a decision", touches: []string{DecisionsURI},
		description: "Record a decision and its reason in the decisions log (ctxgit decide TEXT --why WHY). Says the decision's id and the file."},
		func(_ context.Context, c *call, in decideArgs) (decideResult, string, error) {
			d, err := taskstate.Decide(c.w, in.Text, in.Why)
			if err != nil {
				return decideResult{}, "", err
			}
			path := c.w.Config.Paths.Decisions
			return decideResult{Decision: d, Path: path}, fmt.Sprintf("%s recorded in %s\n", d.ID, path), nil
		})
	add(s, tool{name: "fail", title: "Record a failure", touches: []string{FailuresURI},
		description: "Record a failure in the failure log, optionally with its type and the action taken (ctxgit fail TEXT --type T --action A). Says the failure's id (for fail_resolved) and the file."},
		func(_ context.Context, c *call, in failArgs) (failResult, string, error) {
			e, err := failureEntry(in)
			if err != nil {
				return failResult{}, "", err
			}
			r, err := taskstate.RecordFailure(c.w, e)
			if err != nil {
				return failResult{}, "", err
			}
			return failResult{Failure: r.Failure, ID: r.ID, Path: r.Path}, fmt.Sprintf("failure %s recorded in %s (%s)\n", r.ID, r.Path, r.Failure.Kind()), nil
		})
	add(s, tool{name: "fail_resolved", title: "Mark a failure resolved", touches: []string{FailuresURI},
		description: "Mark a failure-log entry resolved once it is fixed, so it is no longer the last failure (ctxgit fail --resolved [ID]); no id: the newest not resolved. Says the file."},
		func(_ context.Context, c *call, in failResolvedArgs) (failResolvedResult, string, error) {
			r, err := taskstate.ResolveFailure(c.w, in.ID)
			if err != nil {
				return failResolvedResult{}, "", err
			}
			return failResolvedResult{AlreadyResolved: r.AlreadyResolved, Failure: r.Failure, Path: r.Path}, r.Said(), nil
		})
	add(s, tool{name: "state_set", title: "Set a task-state field",
		description: "Set one field of the durable task state, e.g. next_action (ctxgit state set FIELD VALUE). Says the file."},
		func(_ context.Context, c *call, in stateSetArgs) (stateSetResult, string, error) {
			ts, err := taskstate.SetTaskField(c.w, in.Field, in.Value)
			if err != nil {
				return stateSetResult{}, "", err
			}
			path := c.w.TaskStatePath()
			return stateSetResult{Field: in.Field, Path: path, State: ts}, fmt.Sprintf("%s set in %s\n", safetext.Line(in.Field), path), nil
		})
	add(s, tool{name: "state_get", title: "Read a task-state field", read: true,
		description: "Read one field of the task state; a list field gives one value per item (ctxgit state get FIELD). Read only."},
		func(_ context.Context, c *call, in stateGetArgs) (stateGetResult, string, error) {
			task, err := c.w.ReadTaskState()
			if err != nil {
				return stateGetResult{}, "", err
			}
			if !task.Exists {
				return stateGetResult{}, "", spec.NotFound("%s does not exist: run `ctxgit ensure` to start a task", task.Path)
			}
			vals, err := taskstate.TaskField(task.State, in.Field)
			if err != nil {
				return stateGetResult{}, "", err
			}
			if vals == nil {
				vals = []string{}
			}
			var b strings.Builder
			for _, v := range vals {
				b.WriteString(safetext.Line(v) + "\n")
			}
			return stateGetResult{Field: in.Field, Values: vals}, b.String(), nil
		})
	add(s, tool{name: "checkpoint", title: "Take a checkpoint", touches: []string{RecoveryURI},
		description: "Snapshot the workspace and the state files onto the session's hidden ref (ctxgit checkpoint -m MESSAGE). HEAD, the index and branches are untouched. Says the checkpoint id, commit and ref."},
		func(ctx context.Context, c *call, in checkpointArgs) (checkpointResult, string, error) {
			res, err := c.w.Checkpoint(workspace.CheckpointOptions{Session: c.session, Trigger: spec.TriggerManual,
				Message: in.Message, NextAction: in.Next, Ctx: ctx})
			if err != nil {
				return checkpointResult{}, "", err
			}
			cp := res.Checkpoint
			out := checkpointResult{CheckpointID: cp.Meta.CheckpointID, Commit: res.Commit.String(), Files: res.Snapshot.Files,
				FilesChanged: cp.Resources.ChangedCount, Problems: []string{}, Ref: res.Ref, Session: cp.Meta.SessionKey}
			for _, p := range res.Problems {
				out.Problems = append(out.Problems, safetext.Line(p.Error()))
			}
			return out, c.w.CheckpointLine(res) + "\n", nil
		})
	add(s, tool{name: "recover", title: "Read the recovery block", read: true,
		description: "The recovery block of the session's newest checkpoint (or the one named): plan, next action, decisions, failures, changed files. A peek: it never marks the checkpoint recovered (ctxgit recover --peek --force). Read only."},
		func(_ context.Context, c *call, in recoverArgs) (recoverResult, string, error) {
			res, err := c.w.Recover(workspace.RecoverOptions{Session: c.session, SessionGiven: s.opts.Session != "",
				Name: in.Checkpoint, Budget: in.Budget, Peek: true, Force: true, Status: taskstate.PeekStatus(c.w, c.session)})
			if err != nil {
				return recoverResult{}, "", err
			}
			out := recoverResult{Block: res.Block, Note: res.Note}
			if r := res.Resolved; r != nil {
				out.CheckpointID, out.Commit, out.Session = r.Checkpoint.Meta.CheckpointID, r.Commit.String(), r.Session
			}
			text := res.Block
			if text == "" {
				text = safetext.Line(res.Note) + "\n"
			}
			return out, text, nil
		})
	add(s, tool{name: "log", title: "List checkpoints", read: true,
		description: "The session's checkpoints, newest first: id, commit, time, trigger, subject (ctxgit log -n N). Read only."},
		func(_ context.Context, c *call, in logArgs) (logResult, string, error) {
			if in.MaxCount < 0 {
				return logResult{}, "", spec.Usage("max_count must not be negative")
			}
			entries, err := c.w.Log(c.session, in.MaxCount)
			if err != nil {
				return logResult{}, "", err
			}
			out := logResult{Checkpoints: []logEntry{}, Session: c.session}
			var b strings.Builder
			for _, e := range entries {
				le := logEntry{CheckpointID: e.CheckpointID, Commit: e.Commit.String(),
					CreatedAt: e.When.Format(time.RFC3339), Session: e.Session, Subject: e.Subject, Trigger: e.Trigger}
				if u, err := strconv.ParseFloat(e.Utilization, 64); err == nil {
					le.Utilization = &u
				}
				out.Checkpoints = append(out.Checkpoints, le)
			}
			// What happened, as ctxgit log says it: not the subject,
			// which repeats the id and trigger; a restore as one line.
			for _, l := range workspace.LogLines(entries) {
				fmt.Fprintf(&b, "%s  %s  %s  %s  %s\n", l.CheckpointID, l.Commit.Short(), l.When.Format("2006-01-02T15:04:05Z"),
					safetext.Line(l.Kind()), safetext.Line(l.What()))
			}
			if len(entries) == 0 {
				b.WriteString("no checkpoints yet in session " + safetext.Line(c.session) + "\n")
			}
			return out, b.String(), nil
		})
	add(s, tool{name: "show", title: "Show a checkpoint", read: true,
		description: "One checkpoint in full: its metadata, working state, plan, decisions and files (ctxgit show CHECKPOINT). Read only."},
		func(_ context.Context, c *call, in showArgs) (showResult, string, error) {
			r, err := c.w.ResolveRead(in.Checkpoint, c.session)
			if err != nil {
				return showResult{}, "", err
			}
			data, err := spec.MarshalCheckpoint(r.Checkpoint)
			if err != nil {
				return showResult{}, "", err
			}
			text := fmt.Sprintf("# commit %s (session %s)\n%s", r.Commit, safetext.Line(r.Session), safetext.Visible(string(data)))
			return showResult{Checkpoint: r.Checkpoint, Commit: r.Commit.String(), Session: r.Session}, text, nil
		})
	add(s, tool{name: "diff", title: "Compare two checkpoints", read: true,
		description: "What changed between two checkpoints (default: the previous and the newest): files with line counts, task state, plan steps, decisions, failures (ctxgit diff FROM TO). Read only."},
		s.diff)
	add(s, tool{name: "report", title: "Pull request report", read: true,
		description: "The pull request as Markdown, as ctxgit report gives it: on a branch other than the default one, the branch's commits, files and uncommitted work with every session of the branch; else the session's history. Goal, plan, instructions, decisions, failures (resolved ones marked), checkpoints, files. Read only."},
		func(_ context.Context, c *call, in reportArgs) (reportResult, string, error) {
			r, err := review.BuildReport(c.w, review.ReportOptions{Session: c.session, Since: in.Since})
			if err != nil {
				return reportResult{}, "", err
			}
			md := review.RenderReportFormat(r, review.FormatMarkdown)
			return reportResult{Markdown: md, Session: r.Session, Title: r.Title}, md, nil
		})
}

// failureEntry checks fail's type and action as `ctxgit fail` does: both
// optional, one given must be known (SPEC §5.2).
func failureEntry(in failArgs) (spec.FailureEntry, error) {
	e := spec.FailureEntry{Summary: in.Text, Lesson: in.Lesson, Body: in.Details}
	var typ, action *string
	if in.Type != "" {
		typ = &in.Type
	}
	if in.Action != "" {
		action = &in.Action
	}
	var err error
	e.Type, e.Action, err = spec.ParseFailureKind(typ, action, "")
	return e, err
}

// status is the person's overview when the command composed one in, else
// the recovery block of the newest checkpoint.
func (s *Server) status(ctx context.Context, c *call, _ noArgs) (map[string]any, string, error) {
	if s.opts.Overview != nil {
		return s.opts.Overview(ctx, c.w, s.opts.Session, s.opts.Session != "")
	}
	res, err := c.w.Recover(workspace.RecoverOptions{Session: c.session, SessionGiven: s.opts.Session != "", Peek: true, Force: true})
	if err != nil {
		return nil, "", err
	}
	out := map[string]any{"block": res.Block, "note": res.Note, "session": c.session}
	if res.Block == "" {
		return out, safetext.Line(res.Note) + "\n", nil
	}
	return out, res.Block, nil
}

// diff compares two checkpoints, as `ctxgit diff FROM TO` does (the
// tool never compares the working tree): with neither named, the
// previous and the newest, and a session's first checkpoint is compared
// with nothing.
func (s *Server) diff(_ context.Context, c *call, in diffArgs) (diffResult, string, error) {
	from, to, err := review.DiffSides(c.w, in.From, in.To, c.session)
	if err != nil {
		return diffResult{}, "", err
	}
	d, err := review.DiffCheckpoints(c.w, from, to, review.DiffOptions{Lines: true, Semantic: true})
	if err != nil {
		return diffResult{}, "", err
	}
	out := diffResult{Decisions: nonNil(d.Decisions), Failures: nonNil(d.Failures), Files: nonNil(d.Files), From: cpRef(d.From),
		OpenItems: nonNil(d.OpenItems), Plan: d.Plan, Problems: []string{}, Task: []taskChange{}, To: cpRef(d.To), Totals: review.Totals(d.Files)}
	for _, p := range d.Problems {
		out.Problems = append(out.Problems, safetext.Line(p.Error()))
	}
	for _, tc := range d.Task {
		out.Task = append(out.Task, taskChange{Field: tc.Field, From: tc.From, To: tc.To})
	}
	var b strings.Builder
	toName := c.w.ShortSession(d.To.Session) + ":" + d.To.Checkpoint.Meta.CheckpointID
	if d.From == nil {
		fmt.Fprintf(&b, "%s (the session's first checkpoint: everything in it is new)\n", safetext.Line(toName))
	} else {
		fmt.Fprintf(&b, "%s → %s\n", safetext.Line(c.w.ShortSession(d.From.Session)+":"+d.From.Checkpoint.Meta.CheckpointID), safetext.Line(toName))
	}
	t := out.Totals
	fmt.Fprintf(&b, "files: %d changed, +%d -%d\n", t.Files, t.Added, t.Removed)
	for _, f := range d.Files {
		fmt.Fprintf(&b, "  %s  %s\n", f.Status, safetext.Path(f.Path))
	}
	fmt.Fprintf(&b, "plan: %d of %d done → %d of %d done\n", d.Plan.FromDone, d.Plan.FromTotal, d.Plan.ToDone, d.Plan.ToTotal)
	for _, st := range d.Plan.Steps {
		fmt.Fprintf(&b, "  %s\n", review.StepChangeText(st))
	}
	for _, dc := range d.Decisions {
		fmt.Fprintf(&b, "decision %s: %s\n", dc.Change, review.DecisionText(dc.Decision))
	}
	for _, fc := range d.Failures {
		fmt.Fprintf(&b, "failure %s: %s\n", fc.Change, review.FailureText(fc.FailureEntry))
	}
	return out, b.String(), nil
}

func cpRef(r *workspace.Resolved) *checkpointRef {
	if r == nil {
		return nil
	}
	return &checkpointRef{CheckpointID: r.Checkpoint.Meta.CheckpointID, Commit: r.Commit.String(), Session: r.Session}
}

// nonNil makes a nil slice an empty one, so JSON has [] and not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
