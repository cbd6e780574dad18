package hooks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Copilot CLI's record as its postToolUse can find it (seen with
// 1.0.102): the turn started, its usage record and the hook's own start
// not written yet.
const (
	copilotSession     = "c15c3d93-86c7-4c32-a82c-0a8f8d63392b"
	copilotTurnStarted = `{"type":"session.start","data":{"sessionId":"c15c3d93-86c7-4c32-a82c-0a8f8d63392b","context":{"cwd":"/w"}},"id":"e1"}
{"type":"user.message","data":{"content":"Run echo hello."},"id":"e2"}
{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"e3"}
`
	copilotTurnRest = `{"type":"session.usage_record","data":{"usage":{"inputTokens":44800,"outputTokens":10,"interactionType":"conversation-agent","maxPromptTokens":64000}},"id":"e4"}
{"type":"tool.execution_start","data":{"toolCallId":"call_1","toolName":"bash"},"id":"e5"}
{"type":"hook.start","data":{"hookType":"postToolUse","input":{"sessionId":"c15c3d93-86c7-4c32-a82c-0a8f8d63392b","timestamp":1795925948312,"cwd":"/w"}},"id":"e6"}
`
)

// copilotSetup is a workspace and, under a Copilot home, the session's
// record as the hook first finds it.
func copilotSetup(t *testing.T) (dir, home, record string) {
	t.Helper()
	dir = initialised(t)
	home = t.TempDir()
	record = filepath.Join(home, "session-state", copilotSession, "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(record), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(record, []byte(copilotTurnStarted), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, home, record
}

func copilotPostToolUse(t *testing.T, dir, home, stamp string, wait time.Duration) (string, time.Duration) {
	t.Helper()
	input := fmt.Sprintf(`{"sessionId":%q,"timestamp":%s,"cwd":%q,"toolName":"bash","toolArgs":{"command":"echo hello"},"toolResult":{"resultType":"success","textResultForLlm":"hello"}}`,
		copilotSession, stamp, dir)
	var out bytes.Buffer
	start := time.Now()
	err := Handle(Request{Host: "copilot", Event: "post-tool-use", Input: []byte(input),
		Env: env(dir, map[string]string{"COPILOT_HOME": home}), Out: &out, CallWait: wait})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), time.Since(start)
}

// docs/HOSTS.md, "GitHub Copilot CLI", "The record": Copilot writes its
// record behind its events; postToolUse waits for its own hook.start (the
// payload's timestamp), after the turn's usage, and the nudge goes out
// with this call's result.
func TestCopilotPostToolUseWaitsForItsRecord(t *testing.T) {
	dir, home, record := copilotSetup(t)
	go func() {
		time.Sleep(150 * time.Millisecond)
		appendTo(t, record, copilotTurnRest)
	}()
	out, took := copilotPostToolUse(t, dir, home, "1795925948312", 30*time.Second)
	if !strings.Contains(out, `{"additionalContext":"Context is 70% full`) {
		t.Fatalf("the hook did not wait for the turn's usage: %q", out)
	}
	if took > 20*time.Second {
		t.Errorf("took %v: the wait did not end when the record caught up", took)
	}
}

// A record that never shows the hook's start (a changed format) costs the
// wait, and after hookpath.MaxCallMisses such calls none; a payload
// without a timestamp in ms waits for nothing.
func TestCopilotPostToolUseStopsWaiting(t *testing.T) {
	dir, home, _ := copilotSetup(t)
	for i := 0; i < 3; i++ {
		if _, took := copilotPostToolUse(t, dir, home, "1795925948312", 200*time.Millisecond); took < 200*time.Millisecond {
			t.Fatalf("call %d took %v: no wait for a record behind", i, took)
		}
	}
	if _, took := copilotPostToolUse(t, dir, home, "1795925948312", 10*time.Second); took > 5*time.Second {
		t.Errorf("after 3 misses the call still waited %v", took)
	}
	dir, home, _ = copilotSetup(t)
	if _, took := copilotPostToolUse(t, dir, home, `"2026-11-29T04:19:08Z"`, 10*time.Second); took > 5*time.Second {
		t.Errorf("a timestamp that is no number: waited %v", took)
	}
}

// With CI=true (as CI systems set it) Copilot CLI 1.0.102 had not yet
// created the session's events.jsonl when its first postToolUse ran (the
// real-host tier): the hook waits for the file as for its hook.start.
func TestCopilotPostToolUseWaitsForTheRecordFile(t *testing.T) {
	dir, home, record := copilotSetup(t)
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(150 * time.Millisecond)
		if err := os.WriteFile(record, []byte(copilotTurnStarted+copilotTurnRest), 0o644); err != nil {
			t.Error(err)
		}
	}()
	out, _ := copilotPostToolUse(t, dir, home, "1795925948312", 30*time.Second)
	if !strings.Contains(out, `{"additionalContext":"Context is 70% full`) {
		t.Fatalf("the hook did not wait for the record file: %q", out)
	}
}
