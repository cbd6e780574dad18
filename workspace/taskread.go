package workspace

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
)

// The task state as the checkpoint reads it (SPEC §12.1): every
// checkpoint carries it, so recover and diff see phase and next_action.
// Writing it, and the rest of the runtime contract, is package taskstate.

// The status tokens (SPEC §12.2).
const (
	StatusOK           = "STATUS:OK"
	StatusMissingState = "STATUS:MISSING_STATE"
	StatusHalt         = "STATUS:HALT_CONTEXT_LIMIT"
	StatusComplete     = "STATUS:COMPLETE"
	// StatusNoGoal is no token of its own: it is STATUS:MISSING_STATE for
	// a task state that lacks only its goal (one `state set` or `fail`
	// created where no plan names a goal), which a recovery block words
	// apart (SPEC §12.2) so the agent keeps the next action and failure
	// it saved rather than rebuild a state that is there.
	StatusNoGoal = "STATUS:MISSING_STATE (goal)"
)

// TaskRead is the task state as found on disk.
type TaskRead struct {
	Path    string // workspace-relative, the file read or to be written
	Exists  bool
	State   *spec.TaskState // nil when absent
	Missing []string        // required fields absent or empty
}

// TaskStatePath is the configured YAML path, or its .json sibling when only
// that exists (SPEC §12.1).
func (w *Workspace) TaskStatePath() string {
	p := w.Config.Paths.TaskState
	if w.StateFileExists(p) {
		return p
	}
	if alt := taskStateJSON(p); alt != p {
		if w.StateFileExists(alt) {
			return alt
		}
	}
	return p
}

// taskStateJSON is the task state's JSON sibling: the path with its
// `.yaml` or `.yml` extension replaced by `.json`, else with `.json`
// appended (SPEC §12.1).
func taskStateJSON(p string) string {
	return strings.TrimSuffix(strings.TrimSuffix(p, ".yaml"), ".yml") + ".json"
}

// ReadTaskState reads the task state. A legacy or malformed file is an
// error (exit 3) naming the file; an absent one is not.
func (w *Workspace) ReadTaskState() (*TaskRead, error) {
	r := &TaskRead{Path: w.TaskStatePath()}
	data, err := w.ReadStateFile(r.Path, maxStateFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r, nil
	case err != nil:
		return nil, err
	}
	r.Exists = true
	r.State, r.Missing, err = spec.ParseTaskState(r.Path, data)
	if err != nil {
		return nil, err
	}
	return r, nil
}
