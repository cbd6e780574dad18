package spec_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ctxgit/ctxgit/spec"
)

const cpPath = ".ctxgit/checkpoint.yaml"

// minimalCheckpoint is the smallest checkpoint that validates.
func minimalCheckpoint() *spec.Checkpoint {
	return &spec.Checkpoint{
		Schema:        spec.CheckpointSchema,
		SchemaVersion: spec.CheckpointSchemaVersion,
		Meta: spec.Meta{
			CheckpointID: "cp_001",
			SessionKey:   "default",
			CreatedAt:    time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
			Trigger:      spec.TriggerManual,
		},
	}
}

func marshal(t testing.TB, c *spec.Checkpoint) []byte {
	t.Helper()
	out, err := spec.MarshalCheckpoint(c)
	if err != nil {
		t.Fatalf("MarshalCheckpoint: %v", err)
	}
	return out
}

// SPEC §8.6: the spec's example is a real checkpoint: it parses, validates,
// and is exactly what MarshalCheckpoint writes for it.
func TestCheckpointExample(t *testing.T) {
	src, err := os.ReadFile("examples/checkpoint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.ParseCheckpoint(cpPath, src)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Meta
	if m.CheckpointID != "cp_002" || m.SessionKey != "default" || m.Trigger != spec.TriggerAuto80 ||
		!m.CreatedAt.Equal(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) || m.PreviousCheckpoint != "cp_001" ||
		m.SessionBase != "9331158999c01059ce2536d18d418a071bc57d0e" {
		t.Errorf("meta = %+v", m)
	}
	if c.Plan.CurrentStep != "3b. Page through the rows with keyset pagination" || c.Plan.Done != 2 || c.Plan.Total != 6 || len(c.Plan.Steps) != 6 {
		t.Errorf("plan = %+v", c.Plan)
	}
	if len(c.Decisions) != 2 || c.Decisions[1].ID != "d_002" || c.Resources.ChangedCount != 5 || c.Snapshot.Excluded[".env*"] != 1 {
		t.Errorf("decisions %+v, resources %+v, snapshot %+v", c.Decisions, c.Resources, c.Snapshot)
	}
	if got := marshal(t, c); !bytes.Equal(got, src) {
		t.Errorf("MarshalCheckpoint(ParseCheckpoint(example)) differs from the example:\n%s", got)
	}
}

// SPEC §1, §8: a reader refuses what it does not know, with one line naming
// the file, exit 3.
func TestParseCheckpointRefuses(t *testing.T) {
	base := string(marshal(t, minimalCheckpoint()))
	for _, tc := range []struct {
		name      string
		old, new  string // replacement in the minimal checkpoint
		src       string // or the whole input
		wantInMsg string
	}{
		{name: "schema_version 2", old: "schema_version: 1", new: "schema_version: 2", wantInMsg: "schema_version 2 is not supported (this ctxgit reads 1)"},
		{name: "schema_version 0", old: "schema_version: 1", new: "schema_version: 0", wantInMsg: "schema_version 0 is not supported"},
		{name: "schema_version missing", old: "schema_version: 1\n", new: "", wantInMsg: "schema_version 0 is not supported"},
		{name: "other schema", old: "schema: ctxgit/checkpoint", new: "schema: context-manager/checkpoint", wantInMsg: `schema is "context-manager/checkpoint", want "ctxgit/checkpoint"`},
		{name: "no schema", old: "schema: ctxgit/checkpoint\n", new: "", wantInMsg: `schema is "", want "ctxgit/checkpoint"`},
		{name: "short id", old: "cp_001", new: "cp_1", wantInMsg: `meta.checkpoint_id "cp_1" is not of the form cp_NNN`},
		{name: "zero id", old: "cp_001", new: "cp_000", wantInMsg: "meta.checkpoint_id"},
		{name: "bad id", old: "cp_001", new: "ckpt-1", wantInMsg: "meta.checkpoint_id"},
		{name: "missing id", old: "checkpoint_id: cp_001", new: `checkpoint_id: ""`, wantInMsg: "meta.checkpoint_id"},
		{name: "traversal session", old: "session_key: default", new: "session_key: ../../x", wantInMsg: `meta.session_key "../../x" is not a valid session key`},
		{name: "empty session", old: "session_key: default", new: `session_key: ""`, wantInMsg: "meta.session_key"},
		{name: "lock session", old: "session_key: default", new: "session_key: x.lock", wantInMsg: "meta.session_key"},
		{name: "upper-case trigger", old: "trigger: manual", new: "trigger: Manual", wantInMsg: `meta.trigger "Manual" is not a trigger name`},
		{name: "trigger with space", old: "trigger: manual", new: "trigger: pre compact", wantInMsg: "meta.trigger"},
		{name: "trigger starting with -", old: "trigger: manual", new: "trigger: -x", wantInMsg: "meta.trigger"},
		{name: "long trigger", old: "trigger: manual", new: "trigger: " + strings.Repeat("a", 41), wantInMsg: "meta.trigger"},
		{name: "empty trigger", old: "trigger: manual", new: `trigger: ""`, wantInMsg: "meta.trigger"},
		{name: "no created_at", old: "created_at: 2026-11-22T10:00:00Z", new: `created_at: 0001-01-01T00:00:00Z`, wantInMsg: "meta.created_at is missing"},
		{name: "utilization above 10", old: "utilization: 0", new: "utilization: 10.5", wantInMsg: "meta.token_usage.utilization 10.5 is out of range"},
		{name: "negative utilization", old: "utilization: 0", new: "utilization: -0.1", wantInMsg: "meta.token_usage.utilization"},
		{name: "wrong type", old: "compaction_count: 0", new: "compaction_count: many", wantInMsg: cpPath + ":8: cannot unmarshal"},
		{name: "bad YAML", src: "schema: ctxgit/checkpoint\nmeta: [\n", wantInMsg: cpPath + ":"},
		{name: "empty", src: "", wantInMsg: cpPath + ": empty checkpoint"},
		{name: "NUL", src: base + "\x00", wantInMsg: "binary file (NUL byte)"},
		{name: "invalid UTF-8", src: "schema: \xff\n", wantInMsg: cpPath + ":1: invalid UTF-8"},
	} {
		src := tc.src
		if tc.old != "" {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("%s: %q not in\n%s", tc.name, tc.old, base)
			}
			src = strings.Replace(base, tc.old, tc.new, 1)
		}
		c, err := spec.ParseCheckpoint(cpPath, []byte(src))
		if err == nil {
			t.Errorf("%s: ParseCheckpoint accepted\n%s", tc.name, src)
			continue
		}
		if c != nil {
			t.Errorf("%s: a refused checkpoint was returned", tc.name)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, cpPath) || !strings.Contains(msg, tc.wantInMsg) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line starting %s holding %q", tc.name, msg, cpPath, tc.wantInMsg)
		}
		if !errors.Is(err, spec.ErrInvalid) || spec.ExitCode(err) != spec.ExitInvalid {
			t.Errorf("%s: %v: exit %d, want 3", tc.name, err, spec.ExitCode(err))
		}
	}
}

// SPEC §1, §8: within schema_version 1 a reader ignores keys it does not
// know; triggers other than the named ones are allowed when well formed.
func TestParseCheckpointAccepts(t *testing.T) {
	base := string(marshal(t, minimalCheckpoint()))
	for _, src := range []string{
		base,
		base + "future_section:\n  x: 1\n",
		strings.Replace(base, "  host: \"\"\n", "  host: \"\"\n  new_meta_key: 3\n", 1),
		strings.Replace(base, "trigger: manual", "trigger: pre-tool-9", 1),
		strings.Replace(base, "trigger: manual", "trigger: "+strings.Repeat("a", 40), 1),
		strings.Replace(base, "utilization: 0", "utilization: 1.25", 1),
		strings.Replace(base, "cp_001", "cp_1000", 1),
		strings.Replace(base, "2026-11-22T10:00:00Z", "2026-11-22T12:00:00+02:00", 1),
	} {
		if _, err := spec.ParseCheckpoint(cpPath, []byte(src)); err != nil {
			t.Errorf("ParseCheckpoint: %v\n%s", err, src)
		}
	}
	for _, trig := range []string{spec.TriggerManual, spec.TriggerAuto80, spec.TriggerCompaction, spec.TriggerSessionEnd, spec.TriggerHalt, spec.TriggerRestore} {
		if !spec.TriggerRE().MatchString(trig) {
			t.Errorf("named trigger %q does not match TriggerRE", trig)
		}
	}
}

// SPEC §8.2: text that spans lines is written as a literal block scalar
// and reads back exactly; one-line text is not a block.
func TestTextLiteralBlock(t *testing.T) {
	for _, tc := range []struct {
		text  string
		block string // expected lines in the YAML, "" for no block
	}{
		{"one line", ""},
		{"first\nsecond", "  message: |-\n    first\n    second\n"},
		{"first\nsecond\n", "  message: |\n    first\n    second\n"},
		{"a\n\nb", "  message: |-\n    a\n\n    b\n"},
		{"  indented\nnext", "  message: |2-\n      indented\n    next\n"},
		{"key: value\n# not a comment", "  message: |-\n    key: value\n    # not a comment\n"},
		{"ünïcode ✅\n→ next", "  message: |-\n    ünïcode ✅\n    → next\n"},
		{"trailing\n\n", ""},
		{"tab\there\nx", ""},
		{"a\r\nb", ""},
		{" \nx", ""},
	} {
		c := minimalCheckpoint()
		c.Meta.Message = spec.Text(tc.text)
		c.Working.NextAction = spec.Text(tc.text)
		out := marshal(t, c)
		if tc.block != "" && !bytes.Contains(out, []byte(tc.block)) {
			t.Errorf("Text %q: want\n%s\nin\n%s", tc.text, tc.block, out)
		}
		if !strings.Contains(tc.text, "\n") && bytes.Contains(out, []byte("message: |")) {
			t.Errorf("one-line Text %q written as a block:\n%s", tc.text, out)
		}
		back, err := spec.ParseCheckpoint(cpPath, out)
		if err != nil {
			t.Fatalf("Text %q: %v\n%s", tc.text, err, out)
		}
		if back.Meta.Message != c.Meta.Message || back.Working.NextAction != c.Working.NextAction {
			t.Errorf("Text %q read back as %q / %q", tc.text, back.Meta.Message, back.Working.NextAction)
		}
	}
}

// SPEC §8.2: multi-line text round-trips whatever it starts with: a
// literal block cannot hold a leading blank line, so such text is written
// double-quoted.
func TestTextLeadingNewline(t *testing.T) {
	for _, msg := range []string{"\nleading newline", "  leading spaces\nx", "\n\n", "a\n\nb\n", " \n"} {
		c := minimalCheckpoint()
		c.Meta.Message = spec.Text(msg)
		back, err := spec.ParseCheckpoint(cpPath, marshal(t, c))
		if err != nil {
			t.Fatal(err)
		}
		if back.Meta.Message != c.Meta.Message {
			t.Errorf("Text %q reads back as %q", c.Meta.Message, back.Meta.Message)
		}
	}
}

// SPEC §8, §8.2: keys are written in the spec's order; optional sections
// are omitted when empty; lists are never omitted.
func TestCheckpointKeyOrder(t *testing.T) {
	c := minimalCheckpoint()
	c.Meta.Message = "m"
	c.Task = &spec.TaskState{SchemaVersion: 1, TaskID: "t"}
	c.Snapshot.Excluded = map[string]int{"*.pem": 1, ".env*": 2, "*.key": 3}
	c.Snapshot.TooLarge = []string{"big (1 bytes)"}
	c.Snapshot.Nested = []string{"sub at abc1234"}
	c.Resources.FilesChanged = []spec.FileChange{{Path: "b", Status: "R", From: "a"}}
	code := 1
	c.Metacog.LastToolFailure = &spec.ToolFailure{Tool: "Bash", Target: "go test ./...", ExitCode: &code, Error: "FAIL", At: "2026-11-22T10:00:00Z"}
	out := marshal(t, c)
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	for _, tc := range []struct {
		section string
		want    []string
	}{
		{"", []string{"schema", "schema_version", "meta", "working", "plan", "metacog", "task", "decisions", "resources", "thread", "open_items", "learnings", "snapshot"}},
		{"meta", []string{"checkpoint_id", "session_key", "created_at", "trigger", "compaction_count", "token_usage", "previous_checkpoint", "session_base", "host", "agent_id", "message"}},
		{"meta.token_usage", []string{"input_tokens", "context_window", "utilization", "source"}},
		{"working", []string{"topic", "status", "interrupted", "last_tool_call", "next_action"}},
		{"plan", []string{"source", "title", "goal", "current_step", "done", "total", "steps"}},
		{"metacog", []string{"last_failure", "last_failure_type", "last_failure_action", "last_tool_failure", "failure_count", "pending_assumptions", "self_model_age", "env_model_age"}},
		{"metacog.last_tool_failure", []string{"tool", "target", "exit_code", "error", "at"}},
		{"resources", []string{"files_read", "files_modified", "files_changed", "files_changed_count", "files_changed_since_session_start", "files_changed_since_session_start_count", "new_decisions", "tools_used"}},
		{"thread", []string{"summary", "key_exchanges"}},
		{"snapshot", []string{"tree", "files", "bytes", "excluded_by_rule", "too_large", "nested_repositories"}},
		{"snapshot.excluded_by_rule", []string{"*.key", "*.pem", ".env*"}},
	} {
		n := root
		if tc.section != "" {
			for _, k := range strings.Split(tc.section, ".") {
				n = mapValue(n, k)
				if n == nil {
					t.Fatalf("no %s in\n%s", tc.section, out)
				}
			}
		}
		if got := mapKeys(n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("keys of %q = %v, want %v", tc.section, got, tc.want)
		}
	}
	if !bytes.Contains(out, []byte("  files_changed:\n    - path: b\n      status: R\n      from: a\n")) {
		t.Errorf("files_changed entry not in {path, status, from} order:\n%s", out)
	}

	// Omitted when empty: meta.message, task, and the snapshot's reports.
	out = marshal(t, minimalCheckpoint())
	for _, k := range []string{"message:", "task:", "excluded_by_rule:", "too_large:", "nested_repositories:", "from:", "last_tool_failure:"} {
		if bytes.Contains(out, []byte(k)) {
			t.Errorf("empty %s written:\n%s", k, out)
		}
	}
	// Lists are written even when empty.
	for _, k := range []string{"decisions: []", "open_items: []", "learnings: []", "  steps: []", "  key_exchanges: []", "  files_changed: []"} {
		if !bytes.Contains(out, []byte(k)) {
			t.Errorf("%s missing:\n%s", k, out)
		}
	}
	// Two-space indentation.
	if !bytes.Contains(out, []byte("\n  checkpoint_id: cp_001\n")) {
		t.Errorf("not 2-space indented:\n%s", out)
	}
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func mapKeys(n *yaml.Node) []string {
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

// SPEC §8.2: marshalling is deterministic, so identical checkpoints diff
// clean.
func TestMarshalCheckpointStable(t *testing.T) {
	c := minimalCheckpoint()
	c.Snapshot.Excluded = map[string]int{"z": 1, "a": 2, "m": 3, "b": 4, "y": 5}
	first := marshal(t, c)
	for range 20 {
		if got := marshal(t, c); !bytes.Equal(got, first) {
			t.Fatalf("MarshalCheckpoint is not deterministic:\n%s\n---\n%s", first, got)
		}
	}
}

// SPEC §8.1: checkpoint ids.
func TestCheckpointID(t *testing.T) {
	for _, tc := range []struct {
		seq  int
		want string
	}{{1, "cp_001"}, {7, "cp_007"}, {42, "cp_042"}, {999, "cp_999"}, {1000, "cp_1000"}, {123456, "cp_123456"}} {
		got := spec.FormatCheckpointID(tc.seq)
		if got != tc.want {
			t.Errorf("FormatCheckpointID(%d) = %q, want %q", tc.seq, got, tc.want)
		}
		if n, ok := spec.ParseCheckpointID(got); !ok || n != tc.seq {
			t.Errorf("ParseCheckpointID(%q) = %d, %v", got, n, ok)
		}
	}
	for _, tc := range []struct {
		id   string
		want int
		ok   bool
	}{
		{"cp_001", 1, true}, {"cp_0007", 7, true}, {"cp_999", 999, true}, {"cp_1000", 1000, true},
		{"cp_000", 0, false}, {"cp_1", 0, false}, {"cp_01", 0, false}, {"cp_", 0, false}, {"cp_abc", 0, false},
		{"CP_001", 0, false}, {"cp-001", 0, false}, {" cp_001", 0, false}, {"cp_001 ", 0, false}, {"cp_001x", 0, false},
		{"cp_-01", 0, false}, {"cp_99999999999999999999", 0, false}, {"", 0, false}, {"d_001", 0, false},
	} {
		n, ok := spec.ParseCheckpointID(tc.id)
		if ok != tc.ok || n != tc.want {
			t.Errorf("ParseCheckpointID(%q) = %d, %v; want %d, %v", tc.id, n, ok, tc.want, tc.ok)
		}
	}
}

// SPEC §8, §8.2: any input parses or fails naming the file; a checkpoint that
// parses is written back and reads as the same value.
func FuzzParseCheckpoint(f *testing.F) {
	ex, _ := os.ReadFile("examples/checkpoint.yaml")
	f.Add(ex)
	f.Add(marshal(f, minimalCheckpoint()))
	c := minimalCheckpoint()
	c.Meta.Message = "a\nb\n"
	c.Thread.KeyExchanges = []spec.Exchange{{Role: "user", Gist: "x\n y"}}
	f.Add(marshal(f, c))
	f.Add([]byte("schema: ctxgit/checkpoint\nschema_version: 2\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c1, err := spec.ParseCheckpoint(cpPath, src)
		if err != nil {
			// SPEC §1: one line naming the file, exit 3 (a quoted
			// multi-line value is folded onto the line).
			if !strings.HasPrefix(err.Error(), cpPath) || strings.Contains(err.Error(), "\n") || spec.ExitCode(err) != spec.ExitInvalid {
				t.Fatalf("error %q: want one line naming %s, exit 3", err, cpPath)
			}
			return
		}
		out1 := marshal(t, c1)
		c2, err := spec.ParseCheckpoint(cpPath, out1)
		if err != nil {
			t.Fatalf("a parsed checkpoint does not read back: %v\n%s", err, out1)
		}
		if out2 := marshal(t, c2); !bytes.Equal(out1, out2) {
			t.Fatalf("round trip changed the checkpoint:\n%s\n---\n%s", out1, out2)
		}
		c3, err := spec.ParseCheckpoint(cpPath, marshal(t, c2))
		if err != nil {
			t.Fatal(err)
		}
		if !c3.Meta.CreatedAt.Equal(c2.Meta.CreatedAt) {
			t.Fatalf("created_at %v read back as %v", c2.Meta.CreatedAt, c3.Meta.CreatedAt)
		}
		c3.Meta.CreatedAt = c2.Meta.CreatedAt
		if !reflect.DeepEqual(c2, c3) {
			t.Fatalf("round trip changed the value:\n%+v\n%+v", c2, c3)
		}
	})
}
