package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// TaskState is the durable task state `.ctxgit/task-state.yaml`, with the
// context-guardian field names kept exactly (SPEC §12.1).
type TaskState struct {
	SchemaVersion   int        `yaml:"schema_version" json:"schema_version"`
	TaskID          string     `yaml:"task_id" json:"task_id"`
	SessionID       string     `yaml:"session_id" json:"session_id"`
	Goal            string     `yaml:"goal" json:"goal"`
	Status          string     `yaml:"status" json:"status"`
	CurrentPhase    string     `yaml:"current_phase" json:"current_phase"`
	NextAction      string     `yaml:"next_action" json:"next_action"`
	CompletedSteps  []string   `yaml:"completed_steps" json:"completed_steps"`
	OpenIssues      []string   `yaml:"open_issues" json:"open_issues"`
	Constraints     []string   `yaml:"constraints" json:"constraints"`
	Artifacts       []Artifact `yaml:"artifacts" json:"artifacts"`
	StateConfidence float64    `yaml:"state_confidence" json:"state_confidence"`
	UpdatedAt       string     `yaml:"updated_at" json:"updated_at"`

	Plan                 []string       `yaml:"plan,omitempty" json:"plan,omitempty"`
	Decisions            []TaskDecision `yaml:"decisions,omitempty" json:"decisions,omitempty"`
	ImportantFacts       []string       `yaml:"important_facts,omitempty" json:"important_facts,omitempty"`
	LastAction           *LastAction    `yaml:"last_action,omitempty" json:"last_action,omitempty"`
	RecoveryInstructions []string       `yaml:"recovery_instructions,omitempty" json:"recovery_instructions,omitempty"`
	FailedAttempts       []string       `yaml:"failed_attempts,omitempty" json:"failed_attempts,omitempty"`
	Blockers             []string       `yaml:"blockers,omitempty" json:"blockers,omitempty"`
	Invariants           []string       `yaml:"invariants,omitempty" json:"invariants,omitempty"`
	Overrides            []HaltOverride `yaml:"overrides,omitempty" json:"overrides,omitempty"`
	// LastSuccessfulAction is a ctxgit extension: the newest last_action
	// whose outcome was success, for the working bundle.
	LastSuccessfulAction *LastAction    `yaml:"last_successful_action,omitempty" json:"last_successful_action,omitempty"`
	Extra                map[string]any `yaml:",inline" json:"-"`
}

// Artifact is a file the task produced or depends on.
type Artifact struct {
	Path        string `yaml:"path" json:"path"`
	Kind        string `yaml:"kind" json:"kind"`
	Description string `yaml:"description" json:"description"`
}

// TaskDecision is a decision recorded in the task state.
type TaskDecision struct {
	Decision string `yaml:"decision" json:"decision"`
	Reason   string `yaml:"reason" json:"reason"`
}

// LastAction is the most recent major action.
type LastAction struct {
	Timestamp string `yaml:"timestamp" json:"timestamp"`
	Type      string `yaml:"type" json:"type"`
	Summary   string `yaml:"summary" json:"summary"`
	Outcome   string `yaml:"outcome" json:"outcome"`
}

// HaltOverride records an explicit override of a context-limit halt.
type HaltOverride struct {
	At     string `yaml:"at" json:"at"`
	Reason string `yaml:"reason" json:"reason"`
}

// TaskStateVersion is the task-state schema_version this spec defines.
const TaskStateVersion = 1

// Task-state values with a meaning of their own (SPEC §12.1).
const (
	NextActionStart = "START"
	TaskComplete    = "complete" // status of a finished task
)

// doneActions end a task when next_action is one of them.
var doneActions = []string{"DONE", "COMPLETE", "FINISH"}

// IsDone reports whether next_action ends the task.
func (t *TaskState) IsDone() bool {
	for _, d := range doneActions {
		if strings.EqualFold(strings.TrimSpace(t.NextAction), d) {
			return true
		}
	}
	return false
}

// requiredTaskFields are the keys every task state has (SPEC §12.1).
var requiredTaskFields = []string{"schema_version", "task_id", "session_id", "goal", "status",
	"current_phase", "next_action", "completed_steps", "open_issues", "constraints", "artifacts",
	"state_confidence", "updated_at"}

// LegacyStateError is a state file of another shape: another tool's, or
// an older one. It is never overwritten; the user archives or
// reinitialises it explicitly.
type LegacyStateError struct {
	Path string
	Why  string
}

func (e *LegacyStateError) Error() string {
	return fmt.Sprintf("%s: not a ctxgit task state (%s): run `ctxgit ensure --archive` to move it aside, or `ctxgit ensure --reinit` to start over", e.Path, e.Why)
}

// Is makes a legacy state bad input (exit 3).
func (e *LegacyStateError) Is(target error) bool { return target == ErrInvalid }

// ParseTaskState reads a task state (YAML, or JSON when the path ends in
// .json). Missing lists the required fields that are absent, and goal or
// next_action when empty: such a state is MISSING_STATE, not an error.
// Errors are malformed input, a legacy shape, or an unknown version.
func ParseTaskState(path string, src []byte) (ts *TaskState, missing []string, err error) {
	if err := checkText(path, src); err != nil {
		return nil, nil, err
	}
	keys := map[string]int{} // key -> line
	ts = &TaskState{}
	if strings.HasSuffix(path, ".json") {
		err = parseTaskJSON(path, src, ts, keys)
	} else {
		err = parseTaskYAML(path, src, ts, keys)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, ok := keys["schema_version"]; !ok {
		return nil, nil, &LegacyStateError{Path: path, Why: "no schema_version"}
	}
	if ts.SchemaVersion != TaskStateVersion {
		return nil, nil, InvalidAt(path, keys["schema_version"], "schema_version %d is not supported (this ctxgit reads %d)", ts.SchemaVersion, TaskStateVersion)
	}
	if !(ts.StateConfidence >= 0 && ts.StateConfidence <= 1) { // NaN fails too
		return nil, nil, InvalidAt(path, keys["state_confidence"], "state_confidence must be between 0 and 1, got %v", ts.StateConfidence)
	}
	for _, f := range requiredTaskFields {
		if _, ok := keys[f]; !ok {
			missing = append(missing, f)
		}
	}
	if _, ok := keys["goal"]; ok && strings.TrimSpace(ts.Goal) == "" {
		missing = append(missing, "goal (empty)")
	}
	if _, ok := keys["next_action"]; ok && strings.TrimSpace(ts.NextAction) == "" {
		missing = append(missing, "next_action (empty)")
	}
	return ts, missing, nil
}

func parseTaskYAML(path string, src []byte, ts *TaskState, keys map[string]int) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return yamlError(path, err)
	}
	if len(doc.Content) == 0 {
		return &LegacyStateError{Path: path, Why: "empty file"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &LegacyStateError{Path: path, Why: "not a mapping"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		keys[root.Content[i].Value] = root.Content[i].Line
	}
	if err := root.Decode(ts); err != nil {
		return yamlError(path, err)
	}
	return nil
}

func parseTaskJSON(path string, src []byte, ts *TaskState, keys map[string]int) error {
	switch t := bytes.TrimSpace(src); {
	case len(t) == 0:
		return &LegacyStateError{Path: path, Why: "empty file"}
	case t[0] != '{':
		return &LegacyStateError{Path: path, Why: "not an object"}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(src, &raw); err != nil {
		return jsonError(path, src, err)
	}
	for k := range raw {
		keys[k] = jsonKeyLine(src, k)
	}
	if err := json.Unmarshal(src, ts); err != nil {
		return jsonError(path, src, err)
	}
	known := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(*ts)) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			known[name] = true
		}
	}
	for k, v := range raw {
		if known[k] {
			continue
		}
		var val any
		json.Unmarshal(v, &val)
		if ts.Extra == nil {
			ts.Extra = map[string]any{}
		}
		ts.Extra[k] = val
	}
	return nil
}

// jsonError names the line of a JSON syntax or type error.
func jsonError(path string, src []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return InvalidAt(path, lineAt(src, se.Offset), "%v", se)
	case errors.As(err, &te):
		return InvalidAt(path, lineAt(src, te.Offset), "%s: want %s, got %s", te.Field, te.Type, te.Value)
	}
	return InvalidAt(path, 0, "%v", err)
}

func lineAt(src []byte, off int64) int {
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	return 1 + bytes.Count(src[:off], []byte("\n"))
}

// jsonKeyLine finds the line of a top-level key, for error messages.
func jsonKeyLine(src []byte, key string) int {
	q, _ := json.Marshal(key)
	if i := bytes.Index(src, append(q, ':')); i >= 0 {
		return lineAt(src, int64(i))
	}
	if i := bytes.Index(src, q); i >= 0 {
		return lineAt(src, int64(i))
	}
	return 0
}

// MarshalTaskState renders a task state in its file's format, keys in the
// spec's order (JSON: sorted), unknown keys kept.
func MarshalTaskState(path string, ts *TaskState) ([]byte, error) {
	if strings.HasSuffix(path, ".json") {
		b, err := json.Marshal(ts)
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		json.Unmarshal(b, &m)
		for k, v := range ts.Extra {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
		out, err := json.MarshalIndent(m, "", "  ")
		return append(out, '\n'), err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(ts); err != nil {
		return nil, err
	}
	enc.Close()
	return buf.Bytes(), nil
}

// NewTaskState is a fresh state: next_action START, confidence 1, and no
// phase until someone sets one (an invented "start" would show in every
// recovery block and diff).
func NewTaskState(taskID, session, goal string, now time.Time) *TaskState {
	return &TaskState{
		SchemaVersion: TaskStateVersion, TaskID: taskID, SessionID: session, Goal: goal,
		Status: "in_progress", NextAction: NextActionStart,
		CompletedSteps: []string{}, OpenIssues: []string{}, Constraints: []string{}, Artifacts: []Artifact{},
		StateConfidence: 1, UpdatedAt: now.UTC().Format(time.RFC3339),
	}
}
