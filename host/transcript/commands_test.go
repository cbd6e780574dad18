package transcript

import (
	"bytes"
	"testing"
)

// docs/HOSTS.md, "Transcripts", "Host commands": a host's own command is
// never the user's request, however the host records it, on every
// transcript format; the latest prompt stays the user's last real one.
func TestHostCommandsAreNoPrompts(t *testing.T) {
	gmeta := `{"sessionId":"s","projectHash":"h","startTime":"2026-11-26T00:00:00Z","lastUpdated":"2026-11-26T00:00:00Z","kind":"main"}`
	gUser := func(id, text string) string {
		return js(obj{"id": id, "timestamp": "2026-11-26T00:00:00Z", "type": "user", "content": []obj{{"text": text}}})
	}
	gReply := js(obj{"id": "g1", "timestamp": "2026-11-26T00:00:00Z", "type": "gemini", "content": "done", "tokens": obj{"input": 100, "output": 1}})
	cxUser := func(text string) []string {
		return []string{cxEvent(obj{"type": "user_message", "message": text}),
			cxItem(obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": text}}})}
	}
	cx := func(texts ...string) []string {
		var out []string
		for _, t := range texts {
			out = append(out, cxUser(t)...)
		}
		return out
	}
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
		{"Claude Code -p: the queued command, then its echo", ClaudeCode, []string{
			ccPromptLine("a", "", "add the refund endpoint"), ccReplyLine("b", "a", "m1", "done"),
			ccQueued("/compact"),
			ccPromptLine("c", "b", "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"),
		}, 2},
		{"Claude Code: a queued command with arguments, delivered as an attachment", ClaudeCode, []string{
			ccPromptLine("a", "", "add the refund endpoint"), ccReplyLine("b", "a", "m1", "done"),
			ccQueued("/compact keep the API notes"),
			ccLine("c", "b", obj{"type": "attachment", "attachment": obj{"type": "queued_command", "prompt": "/compact keep the API notes", "commandMode": "prompt"}}),
		}, 2},
		{"Claude Code: a command as a plain user line", ClaudeCode, []string{
			ccPromptLine("a", "", "add the refund endpoint"), ccReplyLine("b", "a", "m1", "done"),
			ccPromptLine("c", "b", "/model opus"), ccPromptLine("d", "c", []obj{ccText("/clear")}),
		}, 2},
		{"Gemini CLI headless: -p \"/compress\" after SessionStart's context", Gemini, []string{
			gmeta, gUser("u1", "add the refund endpoint"), gReply,
			gUser("u2", "<hook_context># Resumed: session s</hook_context>\n\n/compress"),
		}, 1},
		{"Gemini CLI: an alias with arguments", Gemini, []string{
			gmeta, gUser("u1", "add the refund endpoint"), gReply, gUser("u2", "/summarize keep the API notes"),
		}, 1},
		{"Codex: codex exec \"/compact\"", Codex, cx("add the refund endpoint", "/compact"), 1},
		{"OpenClaw: /new and /status", OpenClaw, []string{
			string(bytes.TrimSpace(ocSession(ocUserE("add the refund endpoint"), ocUserE("/new"), ocUserE("/status")))),
		}, 2},
		{"Qwen Code: /compress and /stats", QwenCode, []string{
			qwUser("u1", "add the refund endpoint"), qwReply, qwUser("u2", "/compress"), qwUser("u3", "/stats model"),
		}, 2},
		{"Copilot CLI: /compact with focus", Copilot, []string{
			cpEvent("user.message", obj{"content": "add the refund endpoint"}),
			cpEvent("assistant.message", obj{"messageId": "m1", "content": "done"}),
			cpEvent("user.message", obj{"content": "/compact keep the API notes"}),
		}, 1},
		{"opencode: /summarize", OpenCode, []string{ocUser("u1", "add the refund endpoint"), ocReply, ocUser("u2", "/summarize")}, 1},
	} {
		s := readLines(t, tc.format, tc.lines...)
		if s.Turns != 1 || s.Thread.LatestPrompt != "add the refund endpoint" || s.HostMessages != tc.hosts {
			t.Errorf("%s: turns %d, latest prompt %q, host messages %d; want 1, the real request, %d",
				tc.name, s.Turns, s.Thread.LatestPrompt, s.HostMessages, tc.hosts)
		}
	}
}

// Commands that carry a task, a host's unknown command, and words that
// merely start with a slash stay the user's request.
func TestHostCommandKeepsRequests(t *testing.T) {
	for _, tc := range []struct {
		format Format
		text   string
		want   bool
	}{
		{ClaudeCode, "/compact", true},
		{ClaudeCode, "  /COMPACT keep notes", true},
		{ClaudeCode, "/init", false},
		{ClaudeCode, "/review the diff", false},
		{ClaudeCode, "/orchestrator split the billing service", false},
		{ClaudeCode, "/usr/local/bin is full, clean it", false},
		{ClaudeCode, "/", false},
		{ClaudeCode, "please /compact", false},
		{Gemini, "/compress", true},
		{Gemini, "/compact", true},
		{Gemini, "/init", false},
		{Codex, "/compact", true},
		{Codex, "/review", false},
		{Codex, "/compress", false},
		{OpenClaw, "/reset soft", true},
		{OpenClaw, "/btw what are we doing?", false},
		{QwenCode, "/compress", true},
		{QwenCode, "/summarize", true},
		{QwenCode, "/init", false},
		{QwenCode, "/btw what changed?", false},
		{Copilot, "/compact", true},
		{Copilot, "/review", false},
		{Copilot, "/plan the migration", false},
		{OpenCode, "/compact", true},
		{OpenCode, "/init", false},
		{"", "/compact", false},
	} {
		if got := hostCommand(tc.format, tc.text); got != tc.want {
			t.Errorf("hostCommand(%s, %q) = %v, want %v", tc.format, tc.text, got, tc.want)
		}
	}
}
