package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// initialised is a temporary directory made a workspace, as `ctxgit init`
// would: outside git, only an initialised directory is one (SPEC §2).
func initialised(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ctxgit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ctxgit", "config.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func env(dir string, vars map[string]string) workspace.Env {
	clock := now
	return workspace.Env{Now: func() time.Time { return clock }, Getenv: func(k string) string { return vars[k] }, Cwd: dir}
}

func run(t *testing.T, dir, host, event, input string) string {
	t.Helper()
	var out bytes.Buffer
	if err := Handle(Request{Host: host, Event: event, Input: []byte(input), Env: env(dir, nil), Out: &out}); err != nil {
		t.Fatalf("%s %s: %v", host, event, err)
	}
	return out.String()
}

// docs/cli.md#hook: the session key is the host's id sanitized, else
// CTXGIT_SESSION, else the default.
func TestSessionKey(t *testing.T) {
	for _, tc := range []struct {
		p    Payload
		vars map[string]string
		want string
	}{
		{Payload{SessionID: "abc-123"}, nil, "abc-123"},
		{Payload{ConversationID: "conv-1"}, nil, "conv-1"},
		{Payload{SessionKey: "agent:main"}, nil, spec.SanitizeSessionKey("agent:main")},
		{Payload{SessionID: "../../etc"}, nil, spec.SanitizeSessionKey("../../etc")},
		{Payload{}, map[string]string{"CTXGIT_SESSION": "mine"}, "mine"},
		{Payload{}, map[string]string{"CTXGIT_SESSION": "../bad"}, spec.DefaultSession},
		{Payload{}, nil, spec.DefaultSession},
	} {
		got := sessionKey("claude-code", tc.p, env("", tc.vars))
		if got != tc.want {
			t.Errorf("%+v: key %q, want %q", tc.p, got, tc.want)
		}
		if spec.ValidateSessionKey(got) != nil {
			t.Errorf("%+v: key %q is not valid", tc.p, got)
		}
	}
}

// docs/HOSTS.md, "Cursor": conversation_id is Cursor's stable key, taken
// before a session_id an event may also carry; other hosts keep
// session_id first.
func TestSessionKeyCursor(t *testing.T) {
	p := Payload{SessionID: "sess-9", ConversationID: "conv-1"}
	if got := sessionKey("cursor", p, env("", nil)); got != "conv-1" {
		t.Errorf("cursor: key %q, want conv-1", got)
	}
	if got := sessionKey("cursor", Payload{SessionID: "sess-9"}, env("", nil)); got != "sess-9" {
		t.Errorf("cursor without conversation_id: key %q, want sess-9", got)
	}
	if got := sessionKey("claude-code", p, env("", nil)); got != "sess-9" {
		t.Errorf("claude-code: key %q, want sess-9", got)
	}
}

// docs/HOSTS.md, "Cursor": below the release that passes postToolUse
// additional_context to the model, ctxgit prints nothing there and keeps
// the recovery pending.
func TestCursorAfterToolContext(t *testing.T) {
	for v, want := range map[string]bool{
		"": true, "garbage": true, "3.7.2": false, "3.7": false, "2.0.77": false, "1.7.0": false,
		"3.8.0": true, "3.8": true, "3.10.1": true, "4.0.0-nightly": true,
		"2026.09.30": false, "2026.10.01": true, "2027.1.1": true,
	} {
		if got := hookpath.CursorAfterToolContext(v); got != want {
			t.Errorf("cursor_version %q: %v, want %v", v, got, want)
		}
	}
}

// docs/HOSTS.md, "Codex CLI": PowerShell and cmd cannot read an `export`
// line, so on Windows Codex gets no env file line (CODEX_THREAD_ID and the
// current-session record name the session instead); elsewhere it does.
func TestEnvFileByOS(t *testing.T) {
	defer func(g string) { hookGOOS = g }(hookGOOS)
	for _, tc := range []struct {
		host, goos string
		want       bool
	}{
		{"codex", "linux", true}, {"codex", "darwin", true}, {"codex", "windows", false},
		{"claude-code", "windows", true}, {"claude-code", "linux", true},
	} {
		hookGOOS = tc.goos
		dir := initialised(t)
		envFile := filepath.Join(t.TempDir(), "env")
		vars := map[string]string{"CODEX_ENV_FILE": envFile, "CLAUDE_ENV_FILE": envFile, "CTXGIT_HOOK_DETACH": "0"}
		var out bytes.Buffer
		in := `{"session_id":"s-1","cwd":` + strconv.Quote(dir) + `,"source":"clear"}`
		if err := Handle(Request{Host: tc.host, Event: "session-start", Input: []byte(in), Env: env(dir, vars), Out: &out}); err != nil {
			t.Fatalf("%s on %s: %v", tc.host, tc.goos, err)
		}
		data, _ := os.ReadFile(envFile)
		if got := strings.Contains(string(data), "export CTXGIT_SESSION='s-1'"); got != tc.want {
			t.Errorf("%s on %s: env file %q, want the export line: %v", tc.host, tc.goos, data, tc.want)
		}
	}
}

// docs/cli.md#hook: bad input is an error for the caller to log, never output.
func TestHandleRejects(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ host, event, input, want string }{
		{"claude-code", "pre-compact", "", "empty input"},
		{"claude-code", "pre-compact", "{not json", "not JSON"},
		{"claude-code", "no-such-event", "{}", "unknown hook"},
		{"nohost", "session-start", "{}", "unknown hook"},
		{"cursor", "before-agent", "{}", "unknown hook"},
	} {
		var out bytes.Buffer
		err := Handle(Request{Host: tc.host, Event: tc.event, Input: []byte(tc.input), Env: env(dir, nil), Out: &out})
		if err == nil || !strings.Contains(err.Error(), tc.want) || out.Len() != 0 {
			t.Errorf("%s %s %q: err %v, output %q", tc.host, tc.event, tc.input, err, out.String())
		}
	}
}

// docs/cli.md#hook: the nudge marker is written once a cycle, delivered once,
// and a stale undelivered marker is replaced.
func TestNudgeCycle(t *testing.T) {
	dir := initialised(t)
	w, err := workspace.Open(env(dir, nil), dir)
	if err != nil {
		t.Fatal(err)
	}
	c := &call{Request: Request{Host: "claude-code", Env: env(dir, nil)}, session: "s", dir: dir}
	reading := taskstate.Pressure{Value: 0.66, Known: true, Source: "host"}
	if _, err := c.gaugeUpdate(w, reading, nil); err != nil {
		t.Fatal(err)
	}
	var m nudgeMarker
	if ok, _ := readJSON(dir, nudgePath(dir, "s"), &m); !ok || m.Flushed || m.UsedPct != 66 {
		t.Fatalf("marker after 66%%: %+v", m)
	}
	first := run(t, dir, "claude-code", "post-tool-use", `{"session_id":"s"}`)
	var out map[string]map[string]any
	if err := json.Unmarshal([]byte(first), &out); err != nil || len(out) != 1 || len(out["hookSpecificOutput"]) != 2 ||
		out["hookSpecificOutput"]["hookEventName"] != "PostToolUse" ||
		!strings.HasPrefix(out["hookSpecificOutput"]["additionalContext"].(string), "Context is 66% full") {
		t.Fatalf("nudge = %q (%v)", first, err)
	}
	if again := run(t, dir, "claude-code", "post-tool-use", `{"session_id":"s"}`); again != "" {
		t.Fatalf("second nudge in one cycle: %q", again)
	}
	// Still above the threshold: a flushed marker is not rewritten, and
	// neither the reading nor the tool call needs the workspace lock for
	// it (they would fail here, the lock being held).
	lock, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	w.Config.Lock.Timeout = spec.Duration(time.Millisecond)
	if _, err := c.gaugeUpdate(w, reading, nil); err != nil {
		t.Fatalf("a reading that changes nothing took the lock: %v", err)
	}
	if again := run(t, dir, "claude-code", "post-tool-use", `{"session_id":"s"}`); again != "" {
		t.Fatalf("nudge after a new reading in the same cycle: %q", again)
	}
	lock.Unlock()
	// A compaction starts a new cycle.
	run(t, dir, "claude-code", "session-start", `{"session_id":"s","source":"compact"}`)
	if _, err := os.Stat(nudgePath(dir, "s")); !os.IsNotExist(err) {
		t.Fatal("session-start compact left the marker")
	}
	// A stale, undelivered marker is removed without a nudge.
	(&call{Request: Request{Root: dir}}).writeJSON(nudgePath(dir, "s"), nudgeMarker{Timestamp: now.Add(-31 * time.Minute), UsedPct: 70})
	if got := run(t, dir, "claude-code", "post-tool-use", `{"session_id":"s"}`); got != "" {
		t.Fatalf("stale marker nudged: %q", got)
	}
	if _, err := os.Stat(nudgePath(dir, "s")); !os.IsNotExist(err) {
		t.Fatal("stale marker kept")
	}
}

// docs/cli.md#statusline: automatic checkpoints from pressure.auto_checkpoint,
// again only after pressure.min_growth more tokens; a compaction resets it.
func TestAutoCheckpoint(t *testing.T) {
	dir := initialised(t)
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	w, _ := workspace.Open(env(dir, nil), dir)
	c := &call{Request: Request{Host: "claude-code", Env: env(dir, nil)}, session: "s", dir: dir}
	reading := func(tokens int64) taskstate.Pressure {
		return taskstate.Pressure{Value: float64(tokens) / 200000, Known: true, Source: "host", Tokens: tokens, Window: 200000}
	}
	for _, tc := range []struct {
		tokens int64
		saved  bool
	}{{150000, false}, {160000, true}, {165000, false}, {168001, true}, {170000, false}} {
		saved, err := c.gaugeUpdate(w, reading(tc.tokens), nil)
		if err != nil {
			t.Fatal(err)
		}
		if saved != tc.saved {
			t.Fatalf("%d tokens: saved %v, want %v", tc.tokens, saved, tc.saved)
		}
	}
	c.clearCycle(dir)
	if saved, _ := c.gaugeUpdate(w, reading(165000), nil); !saved {
		t.Fatal("no automatic checkpoint after a compaction reset the baseline")
	}
	entries, err := w.Log("s", 0)
	if err != nil || len(entries) != 3 || entries[0].Trigger != spec.TriggerAuto80 {
		t.Fatalf("log = %+v, %v", entries, err)
	}
}

// docs/HOSTS.md, "Output formats": each host's injection format, per event; no
// output ever carries a permission or decision field.
func TestWriteContextFormats(t *testing.T) {
	for _, tc := range []struct{ host, event, want string }{
		{"claude-code", "session-start", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"SessionStart"}}` + "\n"},
		{"claude-code", "post-tool-use", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"PostToolUse"}}` + "\n"},
		{"claude-code", "user-prompt-submit", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"UserPromptSubmit"}}` + "\n"},
		{"codex", "session-start", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"SessionStart"}}` + "\n"},
		{"codex", "post-tool-use", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"PostToolUse"}}` + "\n"},
		{"gemini", "after-tool", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"AfterTool"}}` + "\n"},
		{"gemini", "before-agent", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"BeforeAgent"}}` + "\n"},
		{"cursor", "post-tool-use", `{"additional_context":"B"}` + "\n"},
		{"cursor", "session-start", `{"additional_context":"B"}` + "\n"},
		{"openclaw", "bootstrap", "B"},
		{"qwen-code", "session-start", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"SessionStart"}}` + "\n"},
		{"qwen-code", "post-tool-use", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"PostToolUse"}}` + "\n"},
		{"qwen-code", "user-prompt-submit", `{"hookSpecificOutput":{"additionalContext":"B","hookEventName":"UserPromptSubmit"}}` + "\n"},
	} {
		var out bytes.Buffer
		c := &call{Request: Request{Host: tc.host, Event: tc.event, Out: &out}}
		if err := c.writeContext("B"); err != nil || out.String() != tc.want {
			t.Errorf("%s %s: %q, %v; want %q", tc.host, tc.event, out.String(), err, tc.want)
		}
		for _, field := range []string{"permission", "decision"} {
			if strings.Contains(strings.ToLower(out.String()), field) {
				t.Errorf("%s %s: output %q carries a %s field", tc.host, tc.event, out.String(), field)
			}
		}
	}
	// Events with no documented way to inject refuse rather than print a
	// shape the host drops.
	for _, tc := range []struct{ host, event string }{
		{"claude-code", "pre-compact"}, {"cursor", "pre-compact"}, {"gemini", "pre-compress"}, {"openclaw", "compact-before"},
		{"qwen-code", "pre-compact"}, {"qwen-code", "stop"},
	} {
		var out bytes.Buffer
		c := &call{Request: Request{Host: tc.host, Event: tc.event, Out: &out}}
		if err := c.writeContext("B"); err == nil || out.Len() > 0 {
			t.Errorf("%s %s: wrote %q, err %v; want an error and nothing written", tc.host, tc.event, out.String(), err)
		}
	}
}

// The nudge states facts: no imperative opening, no "you must".
func TestNudgeTextIsFactual(t *testing.T) {
	for _, text := range []string{fmt.Sprintf(NudgeText, 70.0, ".active-plan.md"), fmt.Sprintf(NudgeTextNoPlan, 70.0)} {
		if !strings.HasPrefix(text, "Context is 70% full") {
			t.Fatalf("nudge = %q", text)
		}
		for _, imperative := range []string{"Before the next step", "save your", "must", "You should", "Please"} {
			if strings.Contains(text, imperative) {
				t.Errorf("nudge %q contains the imperative %q", text, imperative)
			}
		}
	}
}

// Events an older install registered answer nothing and log nothing.
func TestRetiredEventsAreSilent(t *testing.T) {
	dir := t.TempDir()
	for host, events := range retiredEvents {
		for _, e := range events {
			var out bytes.Buffer
			err := Handle(Request{Host: host, Event: e, Input: []byte(`{"session_id":"s"}`), Env: env(dir, nil), Out: &out})
			if err != nil || out.Len() > 0 {
				t.Errorf("%s %s: %q, %v", host, e, out.String(), err)
			}
			for _, cur := range Events[host] {
				if cur == e {
					t.Errorf("%s %s is both current and retired", host, e)
				}
			}
		}
	}
}
