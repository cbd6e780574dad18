package transcript

import (
	"reflect"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

func cpEvent(typ string, data obj) string {
	return js(obj{"type": typ, "data": data, "id": "e-" + typ, "timestamp": "2026-11-29T10:00:00.000Z", "parentId": nil})
}

// docs/HOSTS.md, "Transcripts": Copilot CLI's update_todo carries the
// whole plan as a markdown checklist each call; the newest call is the
// plan, steps in order, lines of any other shape left out.
func TestCopilotUpdateTodoPlan(t *testing.T) {
	call := func(id, list string) string {
		return cpEvent("assistant.message", obj{"messageId": "m" + id, "content": "", "toolRequests": []obj{
			{"toolCallId": id, "name": "update_todo", "arguments": obj{"todos": list}}}})
	}
	s := readLines(t, Copilot,
		call("c1", "- [ ] Read the parser\n- [ ] Fix it"),
		call("c2", "# Plan\n- [x] Read the parser\n- [-] Fix the off-by-one\n2. [ ] Run the tests\n* [~] Update docs\nnot a step\n- [?] odd\n- [ ] "),
	)
	want := &spec.HostPlan{Tool: "update_todo", Steps: []spec.HostPlanStep{
		{Text: "Read the parser", Status: spec.HostStepDone},
		{Text: "Fix the off-by-one", Status: spec.HostStepInProgress},
		{Text: "Run the tests", Status: spec.HostStepPending},
		{Text: "Update docs", Status: spec.HostStepInProgress},
	}}
	if !reflect.DeepEqual(s.Thread.HostPlan, want) {
		t.Errorf("HostPlan = %+v\nwant %+v", s.Thread.HostPlan, want)
	}
}

// docs/HOSTS.md, "Transcripts": a Copilot CLI shell result's failure is
// its exit code; its text loses the host's <shellId: …> line and the
// postToolUse hooks' guidance (ctxgit's own nudge among it). Usage of a
// request that is not the conversation's (a subagent's) is not a reading.
func TestCopilotResults(t *testing.T) {
	req := cpEvent("assistant.message", obj{"messageId": "m1", "content": "", "toolRequests": []obj{
		{"toolCallId": "c1", "name": "bash", "arguments": obj{"command": "make test"}}}})
	done := cpEvent("tool.execution_complete", obj{"toolCallId": "c1", "success": true, "shellExecution": obj{"exitCode": 2},
		"result": obj{"content": "FAIL: TestParse\n<shellId: 3 completed with exit code 2>\n\nTool \"bash\" succeeded. Additional guidance from postToolUse hooks:\nContext is 70% full"}})
	usage := func(kind string, in int) string {
		return cpEvent("session.usage_record", obj{"usage": obj{"inputTokens": in, "outputTokens": 5, "cacheReadTokens": 0, "maxPromptTokens": 64000, "interactionType": kind}})
	}
	s := readLines(t, Copilot, req, usage("conversation-agent", 9000), done, usage("conversation-subagent", 500))
	if len(s.ToolFailures) != 1 {
		t.Fatalf("failures %+v", s.ToolFailures)
	}
	f := s.ToolFailures[0]
	if f.Error != "FAIL: TestParse" || f.Summary != "FAIL: TestParse" || f.ExitCode == nil || *f.ExitCode != 2 || f.Target != "make test" {
		t.Errorf("failure %+v", f)
	}
	if !s.UsageKnown || s.Usage.Used() != 9000 || s.Usage.ContextWindow != 64000 {
		t.Errorf("usage %+v %v; want the conversation's 9000 of 64000", s.Usage, s.UsageKnown)
	}
	// A call that exits 0 is no failure; a compaction that was not
	// applied is no compaction.
	ok := cpEvent("tool.execution_complete", obj{"toolCallId": "c1", "success": true, "shellExecution": obj{"exitCode": 0}, "result": obj{"content": "ok"}})
	failedCompaction := cpEvent("session.compaction_complete", obj{"success": false, "outcome": "failed"})
	if s := readLines(t, Copilot, req, ok, failedCompaction); len(s.ToolFailures) != 0 || s.Compactions != 0 {
		t.Errorf("failures %+v, compactions %d; want none", s.ToolFailures, s.Compactions)
	}
}

// docs/HOSTS.md, "Transcripts": an opencode assistant message's tokens
// are the usage, its input without the cache reads; the summary a
// compaction writes is not a reading, and the compaction ends the usage
// before it.
func TestOpenCodeUsage(t *testing.T) {
	msg := func(id string, summary bool, input, read int) string {
		return js(obj{"info": obj{"id": id, "sessionID": "ses_1", "role": "assistant", "summary": summary, "time": obj{"created": 1},
			"tokens": obj{"input": input, "output": 10, "reasoning": 0, "cache": obj{"read": read, "write": 0}}}, "parts": []obj{}})
	}
	compaction := js(obj{"info": obj{"id": "msg_c", "sessionID": "ses_1", "role": "user", "time": obj{"created": 2}},
		"parts": []obj{{"id": "prt_c", "type": "compaction", "auto": true}}})
	s := readLines(t, OpenCode, msg("msg_1", false, 3000, 1000))
	if !s.UsageKnown || s.Usage.Used() != 4000 || s.Usage.CacheReadTokens != 1000 || s.Usage.MessageID != "msg_1" {
		t.Errorf("usage %+v %v; want 4000 with 1000 read from the cache", s.Usage, s.UsageKnown)
	}
	if s := readLines(t, OpenCode, msg("msg_1", false, 19000, 0), compaction, msg("msg_s", true, 500, 0)); s.UsageKnown || s.Compactions != 1 {
		t.Errorf("after a compaction and its summary: usage %+v %v, compactions %d; want none known, 1", s.Usage, s.UsageKnown, s.Compactions)
	}
}

// docs/HOSTS.md, "Transcripts", "Host commands": on the formats of issue
// 33's hosts too, a host's own command recorded as a user message is no
// request: the latest prompt stays the user's last real one.
func TestNewHostCommandsAreNoPrompts(t *testing.T) {
	qwUser := func(id, text string) string {
		return js(obj{"uuid": id, "sessionId": "s", "timestamp": "2026-11-29T10:00:00.000Z", "type": "user",
			"provenance": "real_user", "cwd": "/w", "message": obj{"role": "user", "parts": []obj{{"text": text}}}})
	}
	qwReply := js(obj{"uuid": "a1", "sessionId": "s", "timestamp": "2026-11-29T10:00:01.000Z", "type": "assistant",
		"cwd": "/w", "message": obj{"role": "model", "parts": []obj{{"text": "done"}}},
		"usageMetadata": obj{"promptTokenCount": 100, "candidatesTokenCount": 1}})
	ocUser := func(id, text string) string {
		return js(obj{"info": obj{"id": id, "sessionID": "s", "role": "user", "time": obj{"created": 1795921066412}},
			"parts": []obj{{"id": "p" + id, "type": "text", "text": text}}})
	}
	ocReply := js(obj{"info": obj{"id": "a1", "sessionID": "s", "role": "assistant", "time": obj{"created": 1795921066413},
		"path": obj{"cwd": "/w"}, "tokens": obj{"input": 100, "output": 1, "cache": obj{"read": 0, "write": 0}}},
		"parts": []obj{{"id": "pa1", "type": "text", "text": "done"}}})
	for _, tc := range []struct {
		name   string
		format Format
		lines  []string
		hosts  int
	}{
		{"Qwen Code: /compress and /stats", QwenCode, []string{
			qwUser("u1", "add the refund endpoint"), qwReply, qwUser("u2", "/compress"), qwUser("u3", "/stats model"),
		}, 2},
		{"Copilot CLI: /compact with focus", Copilot, []string{
			cpEvent("user.message", obj{"content": "add the refund endpoint"}),
			cpEvent("assistant.message", obj{"messageId": "m1", "content": "done"}),
			cpEvent("user.message", obj{"content": "/compact keep the API notes"}),
		}, 1},
		{"opencode: /summarize", OpenCode, []string{
			ocUser("u1", "add the refund endpoint"), ocReply, ocUser("u2", "/summarize"),
		}, 1},
	} {
		s := readLines(t, tc.format, tc.lines...)
		if s.Turns != 1 || s.Thread.LatestPrompt != "add the refund endpoint" || s.HostMessages != tc.hosts {
			t.Errorf("%s: turns %d, latest prompt %q, host messages %d; want 1, the real request, %d",
				tc.name, s.Turns, s.Thread.LatestPrompt, s.HostMessages, tc.hosts)
		}
	}
	for _, tc := range []struct {
		format Format
		text   string
		want   bool
	}{
		{QwenCode, "/compress", true},
		{QwenCode, "/summarize", true},
		{QwenCode, "/init", false},
		{QwenCode, "/btw what changed?", false},
		{Copilot, "/compact", true},
		{Copilot, "/review", false},
		{Copilot, "/plan the migration", false},
		{OpenCode, "/compact", true},
		{OpenCode, "/init", false},
	} {
		if got := hostCommand(tc.format, tc.text); got != tc.want {
			t.Errorf("hostCommand(%s, %q) = %v, want %v", tc.format, tc.text, got, tc.want)
		}
	}
}
