package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/ctxgit/ctxgit/markdown"
	"github.com/ctxgit/ctxgit/spec"
)

// State is every state file of a workspace read into one model (SPEC §3).
// A file that is missing leaves its part empty; a file that is malformed
// leaves its part empty and adds a problem, so a checkpoint can still be
// taken and the problem reported.
type State struct {
	Plan     *spec.Plan // nil when there is no plan
	PlanPath string

	Failures    []spec.FailureEntry
	FailurePath string // the file read: canonical or fallback

	Decisions     []spec.Decision
	DecisionsPath string

	// SelfModelAge and EnvModelAge are the ages of those files; -1 when
	// absent.
	SelfModelAge time.Duration
	EnvModelAge  time.Duration

	// Problems are one-line errors naming file and line.
	Problems []error
}

// LastFailure is the last failure (SPEC §5.1): the newest failure-log
// entry not resolved (SPEC §5.6), or nil when every entry is.
func (s *State) LastFailure() *spec.FailureEntry {
	for i := len(s.Failures) - 1; i >= 0; i-- {
		if !s.Failures[i].IsResolved() {
			return &s.Failures[i]
		}
	}
	return nil
}

// ReadState reads the plan, failure log, decisions log and model ages.
func (w *Workspace) ReadState() *State {
	p := w.Config.Paths
	st := &State{PlanPath: p.Plan, DecisionsPath: p.Decisions, FailurePath: p.FailureLog}

	if src, ok := readStateFile(w, st, p.Plan); ok {
		plan, err := markdown.ParsePlan(p.Plan, src)
		if err != nil {
			st.Problems = append(st.Problems, err)
		}
		st.Plan = plan
	}

	failPath := w.FailureLogPath()
	st.FailurePath = failPath
	if src, ok := readStateFile(w, st, failPath); ok {
		entries, err := markdown.ParseFailureLog(failPath, src)
		if err != nil {
			st.Problems = append(st.Problems, err)
		}
		st.Failures = entries
	}

	if src, ok := readStateFile(w, st, p.Decisions); ok {
		ds, err := markdown.ParseDecisions(p.Decisions, src)
		if err != nil {
			st.Problems = append(st.Problems, err)
		}
		st.Decisions = ds
	}

	st.SelfModelAge = fileAge(w, p.SelfModel)
	st.EnvModelAge = fileAge(w, p.EnvModel)
	return st
}

// FailureLogPath is the failure log in use: the configured one, or the
// failure-recovery skill's own log when ctxgit's is absent and it is not.
func (w *Workspace) FailureLogPath() string {
	p := w.Config.Paths
	if !w.StateFileExists(p.FailureLog) && w.StateFileExists(p.FailureLogFallback) {
		return p.FailureLogFallback
	}
	return p.FailureLog
}

// readStateFile reads one state file; absence is not a problem, and a
// file the rule refuses or that cannot be read is one, said once.
func readStateFile(w *Workspace, st *State, rel string) ([]byte, bool) {
	data, err := w.ReadStateFile(rel, maxStateFile)
	switch {
	case err == nil:
		return data, true
	case errors.Is(err, fs.ErrNotExist):
		return nil, false
	case errors.Is(err, ErrRefused) && !slices.Contains(w.refusals, err.Error()):
		w.refusals = append(w.refusals, err.Error())
	}
	st.Problems = append(st.Problems, err)
	return nil, false
}

func fileAge(w *Workspace, rel string) time.Duration {
	fi, err := w.StatStateFile(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	age := w.Env.Now().Sub(fi.ModTime())
	if age < 0 {
		age = 0
	}
	return age.Round(time.Second)
}

// unwrapPathError drops the absolute path from an os error, since the
// FileError around it already names the workspace-relative file.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
