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
