package spec_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

const fullState = `schema_version: 1
task_id: t-1
session_id: s-1
goal: migrate the ledger
status: in_progress
current_phase: dual write
next_action: run the reconciliation job
completed_steps: [inventory]
open_issues: []
constraints: [no downtime]
artifacts:
  - {path: docs/plan.md, kind: doc, description: the plan}
state_confidence: 0.9
updated_at: "2026-11-22T10:00:00Z"
custom_field: kept
`

// SPEC §12.1: the fields, the missing-state rule and the done tokens.
func TestParseTaskState(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		missing         string
		done            bool
	}{
		{"complete", "task-state.yaml", fullState, "", false},
		{"done", "task-state.yaml", strings.Replace(fullState, "run the reconciliation job", "DONE", 1), "", true},
		{"finish lower case", "task-state.yaml", strings.Replace(fullState, "run the reconciliation job", " finish ", 1), "", true},
		{"empty next action", "task-state.yaml", strings.Replace(fullState, "run the reconciliation job", `""`, 1), "next_action (empty)", false},
		{"missing fields", "task-state.yaml", "schema_version: 1\ngoal: g\nnext_action: START\n", "task_id,session_id,status,current_phase,completed_steps,open_issues,constraints,artifacts,state_confidence,updated_at", false},
		{"json", "task-state.json", `{"schema_version": 1, "task_id": "t", "session_id": "s", "goal": "g", "status": "x",
"current_phase": "p", "next_action": "n", "completed_steps": [], "open_issues": [], "constraints": [],
"artifacts": [], "state_confidence": 0.5, "updated_at": "u", "extra": {"a": 1}}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, missing, err := spec.ParseTaskState(tc.path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(missing, ","); got != tc.missing {
				t.Fatalf("missing = %q, want %q", got, tc.missing)
			}
			if ts.IsDone() != tc.done {
				t.Fatalf("IsDone = %v", ts.IsDone())
			}
		})
	}
}

// SPEC §12.1: bad input names the file and the line; another shape is a
// legacy state naming --archive and --reinit.
func TestParseTaskStateErrors(t *testing.T) {
	for _, tc := range []struct {
		name, path, src, want string
		legacy                bool
	}{
		{"legacy shape", "s.yaml", "task: build it\nstep: 3\n", "s.yaml: not a ctxgit task state (no schema_version): run `ctxgit ensure --archive` to move it aside, or `ctxgit ensure --reinit` to start over", true},
		{"legacy list", "s.yaml", "- a\n- b\n", "not a mapping", true},
		{"empty", "s.yaml", "", "empty file", true},
		{"version", "s.yaml", "schema_version: 2\n", "s.yaml:1: schema_version 2 is not supported (this ctxgit reads 1)", false},
		{"confidence range", "s.yaml", "schema_version: 1\nstate_confidence: 1.5\n", "s.yaml:2: state_confidence must be between 0 and 1, got 1.5", false},
		{"wrong type", "s.yaml", "schema_version: 1\ncompleted_steps: 5\n", "s.yaml:2: cannot unmarshal", false},
		{"bad yaml", "s.yaml", "schema_version: 1\ngoal: [\n", "s.yaml:", false},
		{"json syntax", "s.json", "{\n\"schema_version\": 1,\n}", "s.json:3: invalid character", false},
		{"json type", "s.json", "{\n\"schema_version\": 1,\n\"state_confidence\": \"high\"\n}", "s.json:3: state_confidence: want float64, got string", false},
		{"binary", "s.yaml", "a\x00b", "s.yaml:1: binary file", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := spec.ParseTaskState(tc.path, []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			var le *spec.LegacyStateError
			if errors.As(err, &le) != tc.legacy {
				t.Fatalf("legacy = %v", !tc.legacy)
			}
			if spec.ExitCode(err) != spec.ExitInvalid {
				t.Fatalf("exit code %d", spec.ExitCode(err))
			}
		})
	}
}

// SPEC §12.1: writing keeps unknown keys and round-trips, in either format.
func TestTaskStateRoundTrip(t *testing.T) {
	for _, path := range []string{"task-state.yaml", "task-state.json"} {
		ts := spec.NewTaskState("t-1", "s", "goal", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
		ts.Extra = map[string]any{"custom": "kept"}
		data, err := spec.MarshalTaskState(path, ts)
		if err != nil {
			t.Fatal(err)
		}
		back, missing, err := spec.ParseTaskState(path, data)
		if err != nil || len(missing) != 0 {
			t.Fatalf("%s: %v, missing %v\n%s", path, err, missing, data)
		}
		if back.NextAction != spec.NextActionStart || back.Extra["custom"] != "kept" || back.UpdatedAt != "2026-11-22T10:00:00Z" {
			t.Fatalf("%s: round trip %+v", path, back)
		}
	}
}

// SPEC §12.1: any bytes, YAML or JSON, parse or fail with one line naming
// the file and exit 3; a state that parses is written back and reads as the
// same state.
func FuzzParseTaskState(f *testing.F) {
	f.Add(true, []byte(fullState))
	f.Add(false, []byte(`{"schema_version":1,"task_id":"t","goal":"g","next_action":"n","state_confidence":0.5,"x":{"y":[1,2]}}`))
	f.Add(true, []byte("schema_version: 1\nstate_confidence: .nan\n"))
	f.Add(false, []byte(`[]`))
	f.Add(true, []byte("task: old shape\n"))
	f.Fuzz(func(t *testing.T, isYAML bool, src []byte) {
		path := "task-state.json"
		if isYAML {
			path = "task-state.yaml"
		}
		ts, _, err := spec.ParseTaskState(path, src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) || strings.Contains(err.Error(), "\n") || spec.ExitCode(err) != spec.ExitInvalid {
				t.Fatalf("error %q: want one line naming %s, exit 3", err, path)
			}
			return
		}
		out1, err := spec.MarshalTaskState(path, ts)
		if err != nil {
			t.Fatalf("a parsed state does not marshal: %v", err)
		}
		back, _, err := spec.ParseTaskState(path, out1)
		if err != nil {
			t.Fatalf("a written state does not read back: %v\n%s", err, out1)
		}
		out2, err := spec.MarshalTaskState(path, back)
		if err != nil || string(out1) != string(out2) {
			t.Fatalf("round trip changed the state (%v):\n%s\n---\n%s", err, out1, out2)
		}
	})
}
