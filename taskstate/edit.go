package taskstate

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/markdown"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// MarkStep marks a plan step (done, in progress, pending, failed),
// changing only that step's line(s) in the file.
func MarkStep(w *workspace.Workspace, number string, status spec.StepStatus, reason string) (*spec.Plan, error) {
	r, err := Mark(w, number, status, reason)
	if err != nil {
		return nil, err
	}
	return r.Plan, nil
}

// MarkResult is what Mark changed: the plan as written, and the failures
// marking the step done resolved.
type MarkResult struct {
	Plan     *spec.Plan
	Resolved []ResolvedFailure
	LogPath  string // the failure log, when Resolved is not empty
}

// ResolvedFailure is one failure-log entry a command resolved.
type ResolvedFailure struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

// Mark is MarkStep that also resolves, when status is done, the failures
// recorded against the step (SPEC §5.6), under the one workspace lock.
// The failure log is read before the plan is written, so a log that
// cannot be edited leaves both files as they were.
func Mark(w *workspace.Workspace, number string, status spec.StepStatus, reason string) (*MarkResult, error) {
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
	var logOut []byte
	res := &MarkResult{}
	if status == spec.StepDone {
		res.LogPath = w.FailureLogPath()
		logSrc, err := readForEdit(w, res.LogPath, true)
		if err != nil {
			return nil, err
		}
		entries, err := markdown.ParseFailureLog(res.LogPath, logSrc)
		if err != nil {
			return nil, err
		}
		var which []int
		for i, e := range entries {
			if e.Step == number && !e.IsResolved() {
				which = append(which, i)
				res.Resolved = append(res.Resolved, ResolvedFailure{ID: spec.FailureID(i), Summary: e.Summary})
			}
		}
		if len(which) > 0 {
			if logOut, err = markdown.ResolveFailures(res.LogPath, logSrc, which, resolution(w, "step "+number+" marked done")); err != nil {
				return nil, err
			}
		}
	}
	if err := w.WriteStateFile(rel, out); err != nil {
		return nil, err
	}
	if logOut != nil {
		if err := w.WriteStateFile(res.LogPath, logOut); err != nil {
			return nil, err
		}
	}
	res.Plan, _ = markdown.ParsePlan(rel, out)
	return res, nil
}

// resolution is a Resolved field's value (SPEC §5.6): the workspace
// clock's time, then how.
func resolution(w *workspace.Workspace, how string) string {
	return w.Now().UTC().Format(time.RFC3339) + " — " + how
}

// Said is what a resolve did, in the one line the CLI and the MCP server
// both print.
func (r *ResolveResult) Said() string {
	switch {
	case r.Failure == nil:
		return fmt.Sprintf("no failure in %s is left to resolve\n", r.Path)
	case r.AlreadyResolved:
		return fmt.Sprintf("%s in %s was already resolved: %s\n", r.Failure.ID, r.Path, oneLine(r.Failure.Summary))
	}
	return fmt.Sprintf("resolved %s in %s: %s\n", r.Failure.ID, r.Path, oneLine(r.Failure.Summary))
}

// readFailureLog reads the failure log for an edit (the caller holds the
// workspace lock): its path, its bytes, and its entries, so a log that
// does not parse is refused before anything is written.
func readFailureLog(w *workspace.Workspace) (rel string, src []byte, entries []spec.FailureEntry, err error) {
	rel = w.FailureLogPath()
	if src, err = readForEdit(w, rel, true); err != nil {
		return "", nil, nil, err
	}
	if entries, err = markdown.ParseFailureLog(rel, src); err != nil {
		return "", nil, nil, err
	}
	return rel, src, entries, nil
}

// ResolveResult is what ResolveFailure did: the entry (nil when none was
// left to resolve), and whether it was resolved already (then nothing was
// written).
type ResolveResult struct {
	Failure         *ResolvedFailure
	AlreadyResolved bool
	Path            string
}

// ResolveFailure marks the failure-log entry id (SPEC §5.6: f_NNN or its
// number) resolved; with id "", the newest entry not resolved. An id the
// log does not have is a usage error naming the log and the id; an entry
// resolved already is left as it is.
func ResolveFailure(w *workspace.Workspace, id string) (*ResolveResult, error) {
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rel, src, entries, err := readFailureLog(w)
	if err != nil {
		return nil, err
	}
	i := -1
	if strings.TrimSpace(id) == "" {
		for j := len(entries) - 1; j >= 0; j-- {
			if !entries[j].IsResolved() {
				i = j
				break
			}
		}
		if i < 0 {
			// Nothing to do is no error: resolving is idempotent.
			return &ResolveResult{Path: rel, AlreadyResolved: true}, nil
		}
	} else {
		n, ok := spec.ParseFailureID(id)
		if !ok {
			return nil, spec.Usage("%s: failure id %q: want f_NNN or its number", rel, id)
		}
		if n >= len(entries) {
			return nil, spec.Usage("%s: no failure %s (the log has %d)", rel, spec.FailureID(n), len(entries))
		}
		i = n
	}
	res := &ResolveResult{Path: rel, Failure: &ResolvedFailure{ID: spec.FailureID(i), Summary: entries[i].Summary}}
	if entries[i].IsResolved() {
		res.AlreadyResolved = true
		return res, nil
	}
	out, err := markdown.ResolveFailures(rel, src, []int{i}, resolution(w, "marked resolved"))
	if err != nil {
		return nil, err
	}
	return res, w.WriteStateFile(rel, out)
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
	r, err := RecordFailure(w, e)
	if err != nil {
		return nil, "", err
	}
	return r.Failure, r.Path, nil
}

// Recorded is a failure-log entry RecordFailure appended: the entry as
// read back, its id (SPEC §5.6) and the log's path.
type Recorded struct {
	Failure *spec.FailureEntry
	ID      string
	Path    string
}

// RecordFailure is Fail with the new entry's id.
func RecordFailure(w *workspace.Workspace, e spec.FailureEntry) (*Recorded, error) {
	if strings.TrimSpace(e.Summary) == "" {
		return nil, spec.Usage("a failure needs a summary")
	}
	if err := spec.CheckArg("the failure", e.Summary+e.Lesson+e.Body); err != nil {
		return nil, err
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	rel, src, _, err := readFailureLog(w)
	if err != nil {
		return nil, err
	}
	e.When = w.Now()
	if e.Step == "" {
		// Recorded against the step in hand, so marking it done resolves
		// the entry (SPEC §5.6).
		if p := w.ReadState().Plan; p != nil {
			if cur := p.Current(); cur != nil {
				e.Step = cur.Number
			}
		}
	}
	out := markdown.AppendFailure(src, e)
	if err := w.WriteStateFile(rel, out); err != nil {
		return nil, err
	}
	entries, err := markdown.ParseFailureLog(rel, out)
	if err != nil || len(entries) == 0 {
		return &Recorded{Failure: &e, ID: spec.FailureID(0), Path: rel}, err
	}
	return &Recorded{Failure: &entries[len(entries)-1], ID: spec.FailureID(len(entries) - 1), Path: rel}, nil
}

// readForEdit reads a state file about to be changed; a missing file is
// empty when missingOK, else an error.
func readForEdit(w *workspace.Workspace, rel string, missingOK bool) ([]byte, error) {
	src, err := w.ReadStateFile(rel, workspace.MaxStateFile)
	switch {
	case err == nil:
		return src, nil
	case errors.Is(err, fs.ErrNotExist) && missingOK:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, spec.NotFound("%s does not exist", rel)
	}
	return nil, err
}
