package taskstate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// writeTaskState stamps updated_at and writes the state atomically.
func writeTaskState(w *workspace.Workspace, path string, ts *spec.TaskState) error {
	ts.UpdatedAt = w.Now().Format(timeLayout)
	data, err := spec.MarshalTaskState(path, ts)
	if err != nil {
		return err
	}
	return w.WriteStateFile(path, data)
}

const timeLayout = "2006-01-02T15:04:05Z07:00"

// editTaskState applies fn to the task state under the workspace lock and
// writes it back. The state must exist and be a ctxgit task state: a
// removal never creates one, and no edit overwrites a legacy one.
func editTaskState(w *workspace.Workspace, fn func(ts *spec.TaskState) error) (*spec.TaskState, error) {
	return editTask(w, nil, false, fn)
}

// editTaskStateArgs is editTaskState after checking the caller's text
// arguments can be stored, creating the task state first when there is
// none (SPEC §12.1): `ctxgit state set next_action "…"`, as the
// onboarding card teaches it, works in a workspace nothing ever ran
// `ensure` in.
func editTaskStateArgs(w *workspace.Workspace, args []string, fn func(ts *spec.TaskState) error) (*spec.TaskState, error) {
	return editTask(w, args, true, fn)
}

func editTask(w *workspace.Workspace, args []string, create bool, fn func(ts *spec.TaskState) error) (*spec.TaskState, error) {
	for _, a := range args {
		if err := spec.CheckArg("the value", a); err != nil {
			return nil, err
		}
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	r, err := w.ReadTaskState()
	if err != nil {
		return nil, err
	}
	if !r.Exists {
		if !create {
			return nil, spec.NotFound("%s does not exist: run `ctxgit ensure` to start a task", r.Path)
		}
		r.State = newTaskState(w, EnsureOptions{Session: currentSession(w)}, "")
	}
	if err := fn(r.State); err != nil {
		return nil, err
	}
	return r.State, writeTaskState(w, r.Path, r.State)
}

// newTaskState is a new task's state as ensure starts it: the given
// goal, else the plan's.
func newTaskState(w *workspace.Workspace, o EnsureOptions, goal string) *spec.TaskState {
	if goal == "" {
		if p := w.ReadState().Plan; p != nil {
			goal = p.Goal
		}
	}
	return spec.NewTaskState(taskID(o, w), o.Session, goal, w.Now())
}

// currentSession is the session an edit that names none belongs to: the
// host session the hooks recorded, else the default one (SPEC §6.3).
func currentSession(w *workspace.Workspace) string {
	if cur, ok := workspace.CurrentSessionAt(w.Root, w.Env.Now()); ok {
		return cur.Session
	}
	return spec.DefaultSession
}

// TaskField gets one task-state field as text lines (a list gives one line
// per item).
func TaskField(ts *spec.TaskState, field string) ([]string, error) {
	if s, ok := scalarField(ts, field); ok {
		return []string{*s}, nil
	}
	if l, ok := listField(ts, field); ok {
		return append([]string{}, (*l)...), nil
	}
	switch field {
	case "schema_version":
		return []string{fmt.Sprint(ts.SchemaVersion)}, nil
	case "state_confidence":
		return []string{fmt.Sprint(ts.StateConfidence)}, nil
	case "updated_at":
		return []string{ts.UpdatedAt}, nil
	case "artifacts":
		var out []string
		for _, a := range ts.Artifacts {
			out = append(out, strings.TrimSpace(fmt.Sprintf("%s\t%s\t%s", a.Path, a.Kind, a.Description)))
		}
		return out, nil
	case "decisions":
		var out []string
		for _, d := range ts.Decisions {
			out = append(out, strings.TrimSpace(d.Decision+"\t"+d.Reason))
		}
		return out, nil
	case "last_action", "last_successful_action":
		a := ts.LastAction
		if field == "last_successful_action" {
			a = ts.LastSuccessfulAction
		}
		if a == nil {
			return nil, nil
		}
		return []string{fmt.Sprintf("%s\t%s\t%s\t%s", a.Timestamp, a.Type, a.Outcome, a.Summary)}, nil
	}
	return nil, spec.Usage("unknown task-state field %q", field)
}

func scalarField(ts *spec.TaskState, field string) (*string, bool) {
	switch field {
	case "task_id":
		return &ts.TaskID, true
	case "session_id":
		return &ts.SessionID, true
	case "goal":
		return &ts.Goal, true
	case "status":
		return &ts.Status, true
	case "current_phase":
		return &ts.CurrentPhase, true
	case "next_action":
		return &ts.NextAction, true
	}
	return nil, false
}

func listField(ts *spec.TaskState, field string) (*[]string, bool) {
	switch field {
	case "completed_steps":
		return &ts.CompletedSteps, true
	case "open_issues":
		return &ts.OpenIssues, true
	case "constraints":
		return &ts.Constraints, true
	case "plan":
		return &ts.Plan, true
	case "important_facts":
		return &ts.ImportantFacts, true
	case "recovery_instructions":
		return &ts.RecoveryInstructions, true
	case "failed_attempts":
		return &ts.FailedAttempts, true
	case "blockers":
		return &ts.Blockers, true
	case "invariants":
		return &ts.Invariants, true
	}
	return nil, false
}

// SetTaskField sets a scalar field (or state_confidence, 0..1).
func SetTaskField(w *workspace.Workspace, field, value string) (*spec.TaskState, error) {
	return editTaskStateArgs(w, []string{value}, func(ts *spec.TaskState) error {
		if s, ok := scalarField(ts, field); ok {
			*s = value
			return nil
		}
		if field == "state_confidence" {
			f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
				return spec.Usage("state_confidence must be a number between 0 and 1, got %q", value)
			}
			ts.StateConfidence = f
			return nil
		}
		if _, ok := listField(ts, field); ok {
			return spec.Usage("%s is a list: use `ctxgit state add %s …` or `state remove`", field, field)
		}
		return spec.Usage("field %q cannot be set (settable: task_id, session_id, goal, status, current_phase, next_action, state_confidence)", field)
	})
}

// AddTaskItem appends to a list field; artifacts and decisions take their
// extra parts (kind and description; reason).
func AddTaskItem(w *workspace.Workspace, field, value, kind, description, reason string) (*spec.TaskState, error) {
	if strings.TrimSpace(value) == "" {
		return nil, spec.Usage("nothing to add")
	}
	return editTaskStateArgs(w, []string{value, kind, description, reason}, func(ts *spec.TaskState) error {
		switch field {
		case "artifacts":
			ts.Artifacts = append(ts.Artifacts, spec.Artifact{Path: value, Kind: kind, Description: description})
			return nil
		case "decisions":
			ts.Decisions = append(ts.Decisions, spec.TaskDecision{Decision: value, Reason: reason})
			return nil
		}
		l, ok := listField(ts, field)
		if !ok {
			return spec.Usage("%q is not a list field", field)
		}
		*l = append(*l, value)
		return nil
	})
}

// RemoveTaskItem removes every item equal to value from a list field (for
// artifacts, by path; for decisions, by the decision's text): the fields
// AddTaskItem appends to.
func RemoveTaskItem(w *workspace.Workspace, field, value string) (*spec.TaskState, error) {
	return editTaskState(w, func(ts *spec.TaskState) error {
		switch field {
		case "artifacts":
			ts.Artifacts = slices.DeleteFunc(ts.Artifacts, func(a spec.Artifact) bool { return a.Path == value })
			return nil
		case "decisions":
			ts.Decisions = slices.DeleteFunc(ts.Decisions, func(d spec.TaskDecision) bool { return d.Decision == value })
			return nil
		}
		l, ok := listField(ts, field)
		if !ok {
			return spec.Usage("%q is not a list field", field)
		}
		*l = slices.DeleteFunc(*l, func(s string) bool { return s == value })
		return nil
	})
}

// StepDone records a completed step: the given text, else the plan's
// current step (which is then marked done in the plan too).
func StepDone(w *workspace.Workspace, text string) (*spec.TaskState, error) {
	var markPlan string
	if strings.TrimSpace(text) == "" {
		st := w.ReadState()
		if st.Plan == nil || st.Plan.Current() == nil {
			return nil, spec.Usage("state step-done needs the step's text: the plan has no current step")
		}
		cur := st.Plan.Current()
		text, markPlan = cur.Title(), cur.Number
	}
	ts, err := editTaskStateArgs(w, []string{text}, func(ts *spec.TaskState) error {
		ts.CompletedSteps = append(ts.CompletedSteps, text)
		return nil
	})
	if err != nil || markPlan == "" {
		return ts, err
	}
	if _, err := MarkStep(w, markPlan, spec.StepDone, ""); err != nil {
		return ts, err
	}
	return ts, nil
}

// RecordAction sets last_action; a success is also the last successful
// action, and a failure also goes to the failure log.
func RecordAction(w *workspace.Workspace, summary, outcome, kind string, failType spec.FailureType, failAction spec.FailureAction) (*spec.TaskState, error) {
	if strings.TrimSpace(summary) == "" {
		return nil, spec.Usage("an action needs --summary")
	}
	if outcome != "success" && outcome != "failure" {
		return nil, spec.Usage("--outcome %q: want success or failure", outcome)
	}
	ts, err := editTaskStateArgs(w, []string{summary, kind}, func(ts *spec.TaskState) error {
		a := &spec.LastAction{Timestamp: w.Now().Format(timeLayout), Type: kind, Summary: summary, Outcome: outcome}
		ts.LastAction = a
		if outcome == "success" {
			ok := *a
			ts.LastSuccessfulAction = &ok
		} else {
			ts.FailedAttempts = append(ts.FailedAttempts, summary)
		}
		return nil
	})
	if err != nil || outcome == "success" {
		return ts, err
	}
	if _, _, err := Fail(w, spec.FailureEntry{Summary: summary, Type: failType, Action: failAction}); err != nil {
		return ts, err
	}
	return ts, nil
}
