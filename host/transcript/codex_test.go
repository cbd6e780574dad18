package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

func cxItem(payload obj) string {
	return js(obj{"timestamp": "2026-03-04T10:00:00.000Z", "type": "response_item", "payload": payload})
}

func cxEvent(payload obj) string {
	return js(obj{"timestamp": "2026-03-04T10:00:00.000Z", "type": "event_msg", "payload": payload})
}

func cxCall(id, name, args string) string {
	return cxItem(obj{"type": "function_call", "name": name, "arguments": args, "call_id": id})
}

func cxOutput(id, output string) string {
	return cxItem(obj{"type": "function_call_output", "call_id": id, "output": output})
}

// docs/HOSTS.md, "Transcripts": every shell result format Codex writes counts
// as a failure when it reports a non-zero exit.
func TestCodexShellResults(t *testing.T) {
	tests := []struct {
		name, output string
		failed       bool
	}{
		{"unified exec, exit 2", "Chunk ID: 4f1a\nWall time: 0.5120 seconds\nProcess exited with code 2\nOriginal token count: 12\nOutput:\nmake: *** [test] Error 2", true},
		{"unified exec, exit 0", "Wall time: 0.0100 seconds\nProcess exited with code 0\nOutput:\nok", false},
		{"unified exec, still running", "Chunk ID: 1\nWall time: 10.0000 seconds\nProcess running with session ID 7\nOutput:\nProcess exited with code 9", false},
		{"shell text, exit 1", "Exit code: 1\nWall time: 0.2 seconds\nOutput:\nFAIL", true},
		{"shell JSON, exit 1", `{"output":"FAIL","metadata":{"exit_code":1,"duration_seconds":0.1}}`, true},
		{"shell JSON, exit 0", `{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.1}}`, false},
	}
	for _, tc := range tests {
		s := readLines(t, Codex, cxCall("c1", "exec_command", `{"cmd":"make test"}`), cxOutput("c1", tc.output))
		if got := len(s.ToolFailures) == 1; got != tc.failed {
			t.Errorf("%s: failures %+v, want failed=%v", tc.name, s.ToolFailures, tc.failed)
		}
		if tc.failed && s.ToolFailures[0].Tool != "exec_command" {
			t.Errorf("%s: failure %+v", tc.name, s.ToolFailures[0])
		}
	}
	// The output as content items.
	items := cxItem(obj{"type": "function_call_output", "call_id": "c1", "output": []obj{{"type": "input_text", "text": "Wall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nboom"}}})
	if s := readLines(t, Codex, cxCall("c1", "exec_command", `{"cmd":"make"}`), items); len(s.ToolFailures) != 1 || s.ToolFailures[0].Summary != "boom" {
		t.Errorf("content items: failures %+v", s.ToolFailures)
	}
	s := readLines(t, Codex, cxCall("c1", "exec_command", `{"cmd":"make"}`), cxOutput("c1", "Chunk ID: 4f1a\nWall time: 0.5 seconds\nProcess exited with code 2\nOutput:\nmake: *** [test] Error 2"))
	if len(s.ToolFailures) != 1 || s.ToolFailures[0].Summary != "make: *** [test] Error 2" {
		t.Errorf("failure summary = %+v; want the output after the header", s.ToolFailures)
	}
}

// docs/HOSTS.md, "Transcripts": a forked thread's copy of its parent's history
// is not its conversation.
func TestCodexForkedCopy(t *testing.T) {
	s := readLines(t, Codex,
		js(obj{"timestamp": "t", "type": "session_meta", "payload": obj{"id": "child", "forked_from_id": "parent", "cwd": "/w"}}),
		js(obj{"timestamp": "t", "type": "session_meta", "payload": obj{"id": "parent", "cwd": "/w"}}),
		cxItem(obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": "refactor the parser"}}}),
		cxEvent(obj{"type": "user_message", "message": "refactor the parser"}),
		js(obj{"timestamp": "t", "type": "turn_context", "payload": obj{"cwd": "/w"}}),
		cxItem(obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": "write the tests for the lexer"}}}),
		cxEvent(obj{"type": "user_message", "message": "write the tests for the lexer"}),
	)
	if s.Turns != 1 || s.Thread.Summary != "write the tests for the lexer" {
		t.Errorf("forked: Turns %d, Summary %q; want only the fork's own prompt", s.Turns, s.Thread.Summary)
	}
	// Not forked: both count.
	s = readLines(t, Codex,
		js(obj{"timestamp": "t", "type": "session_meta", "payload": obj{"id": "a", "cwd": "/w"}}),
		cxEvent(obj{"type": "user_message", "message": "one"}),
		js(obj{"timestamp": "t", "type": "turn_context", "payload": obj{"cwd": "/w"}}),
		cxEvent(obj{"type": "user_message", "message": "two"}),
	)
	if s.Turns != 2 {
		t.Errorf("not forked: Turns %d, want 2", s.Turns)
	}
}

// docs/HOSTS.md, "Transcripts", "Host plans": the newest plan tool call is the
// plan.
func TestHostPlans(t *testing.T) {
	step := func(text, status string) spec.HostPlanStep {
		return spec.HostPlanStep{Text: spec.Text(text), Status: status}
	}
	s := readLines(t, Codex,
		cxCall("p1", "update_plan", `{"plan":[{"step":"Read the code","status":"in_progress"},{"step":"Fix the bug","status":"pending"}]}`),
		cxOutput("p1", "Plan updated"),
		cxCall("p2", "update_plan", `{"explanation":"moving on","plan":[{"step":"Read the code","status":"completed"},{"step":"Fix the bug","status":"in_progress"},{"step":"Add a test","status":"pending"}]}`),
	)
	want := &spec.HostPlan{Tool: "update_plan", Steps: []spec.HostPlanStep{step("Read the code", "done"), step("Fix the bug", "in_progress"), step("Add a test", "pending")}}
	if !reflect.DeepEqual(s.Thread.HostPlan, want) {
		t.Errorf("Codex update_plan: %+v", s.Thread.HostPlan)
	}
	if d, n := want.Progress(); d != 1 || n != 3 || want.Current().Text != "Fix the bug" {
		t.Errorf("Progress %d/%d, Current %+v", d, n, want.Current())
	}

	s = readLines(t, ClaudeCode,
		ccUser("go"),
		ccAsst("m1", ccUsage(1, 1, 1, 1), ccCall("t1", "TodoWrite", obj{"todos": []obj{
			{"content": "Write the lexer", "status": "completed", "activeForm": "Writing the lexer"},
			{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}}})),
		ccSideAsst("s1", ccUsage(1, 1, 1, 1), ccCall("t2", "TodoWrite", obj{"todos": []obj{{"content": "subagent's own", "status": "pending"}}})),
	)
	want = &spec.HostPlan{Tool: "TodoWrite", Steps: []spec.HostPlanStep{step("Write the lexer", "done"), step("Write the parser", "in_progress")}}
	if !reflect.DeepEqual(s.Thread.HostPlan, want) {
		t.Errorf("Claude TodoWrite (a subagent's list ignored): %+v", s.Thread.HostPlan)
	}

	s = readLines(t, ClaudeCode,
		ccAsst("m1", ccUsage(1, 1, 1, 1), ccCall("t1", "TaskCreate", obj{"subject": "Design the schema", "description": "d", "activeForm": "Designing"})),
		ccAsst("m2", ccUsage(1, 1, 1, 1), ccCall("t2", "TaskCreate", obj{"subject": "Migrate the data", "description": "d", "activeForm": "Migrating"})),
		ccAsst("m3", ccUsage(1, 1, 1, 1), ccCall("t3", "TaskUpdate", obj{"taskId": "1", "status": "completed"})),
		ccAsst("m4", ccUsage(1, 1, 1, 1), ccCall("t4", "TaskUpdate", obj{"taskId": "2", "status": "in_progress"})),
	)
	want = &spec.HostPlan{Tool: "TaskCreate", Steps: []spec.HostPlanStep{step("Design the schema", "done"), step("Migrate the data", "in_progress")}}
	if !reflect.DeepEqual(s.Thread.HostPlan, want) {
		t.Errorf("Claude task tools: %+v", s.Thread.HostPlan)
	}

	if s := readLines(t, ClaudeCode, ccUser("go")); s.Thread.HostPlan != nil {
		t.Errorf("no plan tool: HostPlan %+v", s.Thread.HostPlan)
	}
}

// docs/HOSTS.md, "Transcripts": Gemini CLI's $rewindTo removes the message it
// names and every later one; prompts before it stay.
func TestGeminiRewind(t *testing.T) {
	meta := js(obj{"sessionId": "s", "projectHash": "h"})
	user := func(id, text string) string {
		return js(obj{"id": id, "type": "user", "content": []obj{{"text": text}}})
	}
	reply := func(id, text string) string { return js(obj{"id": id, "type": "gemini", "content": text}) }
	s := readLines(t, Gemini, meta, user("u1", "one"), reply("g1", "a"), user("u2", "two"), reply("g2", "b"),
		js(obj{"$rewindTo": "u2"}), user("u3", "three"))
	if s.Turns != 2 || s.AbandonedPrompts != 1 || s.Thread.Summary != "one ... three" {
		t.Errorf("rewind to u2: Turns %d, AbandonedPrompts %d, Summary %q", s.Turns, s.AbandonedPrompts, s.Thread.Summary)
	}
	// A rewind to a message only a $set named keeps the prompts before it.
	s = readLines(t, Gemini, meta, user("u1", "one"), reply("g1", "a"),
		js(obj{"$set": obj{"messages": []obj{{"id": "u1", "type": "user", "content": "one"}, {"id": "g1", "type": "gemini", "content": "a"}, {"id": "s1", "type": "user", "content": "summary"}}}}),
		user("u2", "two"), js(obj{"$rewindTo": "s1"}), user("u3", "three"))
	if s.Turns != 2 || s.Thread.Summary != "one ... three" {
		t.Errorf("rewind to a $set message: Turns %d, Summary %q", s.Turns, s.Thread.Summary)
	}
	// A rewind to an unknown id removes everything.
	s = readLines(t, Gemini, meta, user("u1", "one"), js(obj{"$rewindTo": "nope"}), user("u2", "two"))
	if s.Turns != 1 || s.Thread.Summary != "two" {
		t.Errorf("rewind to an unknown id: Turns %d, Summary %q", s.Turns, s.Thread.Summary)
	}
}

// docs/HOSTS.md, "Transcripts": a Gemini CLI recording may hold its
// conversation only in a $set of messages; those are read, but not their token
// counts (history), and a summary wholly in one tag is the host's.
func TestGeminiConversationInSet(t *testing.T) {
	s := readLines(t, Gemini,
		js(obj{"sessionId": "s", "projectHash": "h", "kind": "main"}),
		js(obj{"$set": obj{"messages": []obj{
			{"id": "u1", "type": "user", "content": []obj{{"text": "Explain the parser"}}},
			{"id": "a1", "type": "gemini", "content": []obj{{"text": "It tokenizes first."}}, "tokens": obj{"input": 900, "cached": 100}},
		}, "lastUpdated": "t"}}),
	)
	if s.Turns != 1 || s.Thread.Summary != "Explain the parser" || s.UsageKnown {
		t.Errorf("Turns %d, Summary %q, UsageKnown %v; want 1, the prompt, false", s.Turns, s.Thread.Summary, s.UsageKnown)
	}
	s = readLines(t, Gemini, js(obj{"sessionId": "s", "projectHash": "h"}),
		js(obj{"id": "u1", "type": "user", "content": "<state_snapshot>all done</state_snapshot>"}),
		js(obj{"id": "u2", "type": "user", "content": "<b>bold</b> is broken"}))
	if s.Turns != 1 || s.HostMessages != 1 {
		t.Errorf("Turns %d, HostMessages %d; want 1, 1", s.Turns, s.HostMessages)
	}
}

// docs/HOSTS.md, "Transcripts": Codex 0.169 writes a response's usage as a
// token_usage_record line as soon as the response completes, and the
// token_count event only after its tool calls ran; a PostToolUse hook
// reads the rollout in between, so the record is the newest reading, over
// the window the last token_count reported.
func TestCodexTokenUsageRecord(t *testing.T) {
	record := func(input, cached, output int) string {
		return js(obj{"timestamp": "t", "type": "token_usage_record", "payload": obj{
			"response_id":        "resp_2",
			"usage":              obj{"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output, "total_tokens": input + output},
			"thread_token_usage": obj{"input_tokens": 999999, "output_tokens": 999999, "total_tokens": 1999998},
		}})
	}
	s := readLines(t, Codex, cxTokens(90000, 4000, 100, 190000), cxCall("c1", "exec_command", `{"cmd":"ls"}`), record(160000, 10000, 50))
	want := Usage{InputTokens: 150000, CacheReadTokens: 10000, OutputTokens: 50, ContextWindow: 190000}
	if !s.UsageKnown || s.Usage != want {
		t.Errorf("usage %+v (known %v), want %+v", s.Usage, s.UsageKnown, want)
	}
	// A first response: no window known yet, the reading still counts.
	s = readLines(t, Codex, record(160000, 0, 50))
	if want := (Usage{InputTokens: 160000, OutputTokens: 50}); !s.UsageKnown || s.Usage != want {
		t.Errorf("usage %+v (known %v), want %+v", s.Usage, s.UsageKnown, want)
	}
	// The session's first turn (issue 34): Codex 0.169 writes the turn's
	// task_started, with the window, before the first response, so the
	// first tool call is read over the window every later event uses
	// (190,000, not an assumed 200,000), by the full reader and the tail.
	started := cxEvent(obj{"type": "task_started", "turn_id": "t1", "started_at": 1795920201, "model_context_window": 190000, "collaboration_mode_kind": "default"})
	lines := []string{started, cxItem(obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": "run echo hello"}}}),
		cxCall("c1", "exec_command", `{"cmd":"ls"}`), record(160000, 0, 50)}
	s = readLines(t, Codex, lines...)
	want = Usage{InputTokens: 160000, OutputTokens: 50, ContextWindow: 190000}
	if !s.UsageKnown || s.Usage != want {
		t.Errorf("first turn: usage %+v (known %v), want %+v", s.Usage, s.UsageKnown, want)
	}
	data := strings.Join(lines, "\n") + "\n"
	if u, ok, err := tailUsage(strings.NewReader(data), int64(len(data)), Codex, 0); err != nil || !ok || u != want {
		t.Errorf("first turn, tail: %+v, %v, %v; want %+v", u, ok, err, want)
	}
	// Resumed from a saved reading, the window read before is kept.
	dir := t.TempDir()
	path, state := filepath.Join(dir, "rollout.jsonl"), filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileResume(path, Codex, ReadOptions{}, state); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(record(170000, 0, 50) + "\n")
	f.Close()
	r, err := ReadFileResume(path, Codex, ReadOptions{}, state)
	if want := (Usage{InputTokens: 170000, OutputTokens: 50, ContextWindow: 190000}); err != nil || r.Usage != want {
		t.Errorf("resumed: usage %+v (%v), want %+v", r.Usage, err, want)
	}
}
