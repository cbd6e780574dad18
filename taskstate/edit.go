package taskstate

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/ctxgit/ctxgit/markdown"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// MarkStep marks a plan step (done, in progress, pending, failed),
// changing only that step's line(s) in the file.
func MarkStep(w *workspace.Workspace, number string, status spec.StepStatus, reason string) (*spec.Plan, error) {
	if err := spec.CheckArg("--reason", reason); err != nil {
		return nil, err
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rel := w.Config.Paths.Plan
	src, err := readForEdit(w, rel, false)
	if err != nil {
		return nil, err
	}
	out, err := markdown.MarkStep(rel, src, number, status, reason)
	if err != nil {
		return nil, err
	}
	if err := w.WriteStateFile(rel, out); err != nil {
		return nil, err
	}
	plan, _ := markdown.ParsePlan(rel, out)
	return plan, nil
}

// Decide appends a decision, stamped with the workspace clock.
func Decide(w *workspace.Workspace, what, why string) (*spec.Decision, error) {
	what, why = strings.TrimSpace(what), strings.TrimSpace(why)
	if what == "" {
		return nil, spec.Usage("a decision needs its text")
	}
	if err := spec.CheckArg("the decision", what+why); err != nil {
		return nil, err
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rel := w.Config.Paths.Decisions
	src, err := readForEdit(w, rel, true)
	if err != nil {
		return nil, err
	}
	if _, err := markdown.ParseDecisions(rel, src); err != nil {
		return nil, err
	}
	d := spec.Decision{What: what, Why: why, When: w.Now()}
	out := markdown.AppendDecision(src, d)
	if err := w.WriteStateFile(rel, out); err != nil {
		return nil, err
	}
	ds, err := markdown.ParseDecisions(rel, out)
	if err != nil || len(ds) == 0 {
		return &d, err
	}
	return &ds[len(ds)-1], nil
}

// Fail appends a failure-log entry. It writes to the skill's fallback log
// when that is the one in use, so there is always one log.
func Fail(w *workspace.Workspace, e spec.FailureEntry) (*spec.FailureEntry, string, error) {
	if strings.TrimSpace(e.Summary) == "" {
		return nil, "", spec.Usage("a failure needs a summary")
	}
	if err := spec.CheckArg("the failure", e.Summary+e.Lesson+e.Body); err != nil {
		return nil, "", err
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, "", err
	}
	defer lock.Unlock()
	rel := w.Config.Paths.FailureLog
	if _, err := os.Stat(w.Path(rel)); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(w.Path(w.Config.Paths.FailureLogFallback)); err == nil {
			rel = w.Config.Paths.FailureLogFallback
		}
	}
	src, err := readForEdit(w, rel, true)
	if err != nil {
		return nil, "", err
	}
	if _, err := markdown.ParseFailureLog(rel, src); err != nil {
		return nil, "", err
	}
	e.When = w.Now()
	out := markdown.AppendFailure(src, e)
	if err := w.WriteStateFile(rel, out); err != nil {
		return nil, "", err
	}
	entries, err := markdown.ParseFailureLog(rel, out)
	if err != nil || len(entries) == 0 {
		return &e, rel, err
	}
	return &entries[len(entries)-1], rel, nil
}

// readForEdit reads a state file about to be changed; a missing file is
// empty when missingOK, else an error.
func readForEdit(w *workspace.Workspace, rel string, missingOK bool) ([]byte, error) {
	src, err := workspace.ReadLimited(w.Path(rel), workspace.MaxStateFile)
	switch {
	case err == nil:
		return src, nil
	case errors.Is(err, fs.ErrNotExist) && missingOK:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, spec.NotFound("%s does not exist", rel)
	case errors.Is(err, workspace.ErrTooLarge):
		return nil, spec.InvalidAt(rel, 0, "larger than %d MiB, not edited", workspace.MaxStateFile>>20)
	}
	return nil, &spec.FileError{Path: rel, Err: workspace.UnwrapPathError(err)}
}
