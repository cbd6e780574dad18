package transcript

import (
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// qwenReader reads a Qwen Code chat record
// (~/.qwen/projects/<project>/chats/<session>.jsonl; docs/HOSTS.md,
// "Transcripts", "Qwen Code"), as its chat recording service writes it
// (QwenLM/qwen-code packages/core/src/services/chatRecordingService.ts;
// seen in 0.24.4). Every line is a record {uuid, parentUuid, sessionId,
// timestamp, type, subtype?, provenance, cwd, message?, …}:
//
//   - type user, no subtype (or mid_turn_user_message), provenance
//     real_user: a prompt, message {role: user, parts: [{text}]}; a
//     prompt a UserPromptSubmit hook added to carries systemPayload
//     {displayText, hookContext} and the hook's text as its own last part
//     <qwen:user-prompt-submit-context>…</qwen:user-prompt-submit-context>.
//     A user record with any other subtype (notification, cron,
//     goal_runtime, …) is the host's;
//   - type assistant: message {role: model, parts: [{text} |
//     {functionCall: {id, name, args}} | {text, thought: true}]} and
//     usageMetadata {promptTokenCount, cachedContentTokenCount,
//     candidatesTokenCount}: the prompt count includes the cached part,
//     as Gemini counts;
//   - type tool_result: message parts [{functionResponse: {id, name,
//     response: {output} or {error}}}] and toolCallResult {callId,
//     status: success | error | cancelled};
//   - type system: subtype chat_compression is a compaction (its
//     systemPayload holds the compressed history, which the model sees
//     from then on); slash commands, telemetry and attribution
//     snapshots are system records too, never prompts.
type qwenReader struct{ st *state }

func (q *qwenReader) finish() {}

// qwenHookContext opens the part a UserPromptSubmit hook's
// additionalContext becomes (docs/users/features/hooks.md).
const qwenHookContext = "<qwen:user-prompt-submit-context>"

func (q *qwenReader) line(n int, line []byte) bool {
	var typ, subtype, provenance, message, usage, result, payload, cwd, ts, uuid []byte
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "type":
			typ = val
		case "subtype":
			subtype = val
		case "provenance":
			provenance = val
		case "message":
			message = val
		case "usageMetadata":
			usage = val
		case "toolCallResult":
			result = val
		case "systemPayload":
			payload = val
		case "cwd":
			cwd = val
		case "timestamp":
			ts = val
		case "uuid":
			uuid = val
		}
	}
	if !m.Whole() {
		return false
	}
	if s := jsonscan.StrOr(cwd); s != "" {
		q.st.cwd = s
	}
	q.st.when = ts
	parts := jsonscan.Field(message, "parts")
	switch jsonscan.StrOr(typ) {
	case "user":
		sub, prov := jsonscan.StrOr(subtype), jsonscan.StrOr(provenance)
		if sub != "" && sub != "mid_turn_user_message" || prov != "" && prov != "real_user" {
			q.st.s.HostMessages++
			return true
		}
		q.results(n, parts, nil)
		if text, ok := qwenPrompt(parts, payload); ok {
			if hostCommand(QwenCode, text) {
				q.st.s.HostMessages++
				return true
			}
			q.st.prompt(text)
		}
	case "assistant":
		if usage != nil {
			u := tail.QwenKeys.Read(usage)
			u.MessageID = jsonscan.StrOr(uuid)
			q.st.usage(u)
		}
		var text []string
		for p := range jsonscan.EachElement(parts) {
			if call := jsonscan.Field(p, "functionCall"); call != nil {
				id, name := jsonscan.StrOr(jsonscan.Field(call, "id")), jsonscan.StrOr(jsonscan.Field(call, "name"))
				args := jsonscan.Field(call, "args")
				q.st.toolCall(id, name, false)
				q.st.callInput(id, name, args)
				q.st.planCall(name, args)
				continue
			}
			if t := jsonscan.Field(p, "text"); jsonscan.IsString(t) && !jsonscan.IsTrue(jsonscan.Field(p, "thought")) {
				text = append(text, jsonscan.StrOr(t))
			}
		}
		if s := joinLines(text); strings.TrimSpace(s) != "" {
			q.st.thread.assistant(jsonscan.StrOr(uuid), s)
		}
	case "tool_result":
		q.results(n, parts, result)
	case "system":
		if jsonscan.KeyIs(subtype, "chat_compression") {
			q.st.compaction()
		}
	}
	return true
}

// results reads the functionResponse parts of a record: each is a tool
// call's result, failed when the record's toolCallResult says error (or,
// without one, when the response holds an error), declined when it says
// cancelled.
func (q *qwenReader) results(n int, parts, result []byte) {
	status := jsonscan.StrOr(jsonscan.Field(result, "status"))
	for p := range jsonscan.EachElement(parts) {
		resp := jsonscan.Field(p, "functionResponse")
		if resp == nil {
			continue
		}
		id, name := jsonscan.StrOr(jsonscan.Field(resp, "id")), jsonscan.StrOr(jsonscan.Field(resp, "name"))
		body := jsonscan.Field(resp, "response")
		errText := jsonscan.Field(body, "error")
		switch {
		case status == "cancelled":
			q.st.toolRejected(id)
			q.st.mark = true
		case status == "error" || status == "" && errText != nil:
			q.st.toolResult(id, name, outcome{failed: true, text: func() string {
				if jsonscan.IsString(errText) {
					return qwenShellText(jsonscan.StrOr(errText))
				}
				return qwenShellText(jsonscan.StrOr(jsonscan.Field(body, "output")))
			}}, n)
		default:
			q.st.toolResult(id, name, outcome{}, n)
		}
	}
}

// qwenShellText is a shell result's exit code line and its output, from
// the block Qwen Code's run_shell_command returns (its packages/core/src/
// tools/shell.ts, as Gemini CLI's): "Command: …", "Directory: …",
// "Output: …" (which may run over several lines), "Error: …", "Exit Code:
// N", "Signal: …", "Process Group PGID: …". An "Error: (none)" and the
// lines after the exit code are the block's, not the command's. Any other
// text is returned as it is.
func qwenShellText(s string) string {
	if !strings.HasPrefix(s, "Command: ") {
		return s
	}
	var out, errLines []string
	exit := ""
	section := ""
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "Output: "):
			section, line = "out", strings.TrimPrefix(line, "Output: ")
		case strings.HasPrefix(line, "Error: "):
			section, line = "err", strings.TrimPrefix(line, "Error: ")
		case strings.HasPrefix(line, "Exit Code: "):
			exit, section = line, ""
			continue
		case strings.HasPrefix(line, "Signal: "), strings.HasPrefix(line, "Process Group PGID: "),
			strings.HasPrefix(line, "Background PIDs: "), strings.HasPrefix(line, "Command: "), strings.HasPrefix(line, "Directory: "):
			section = ""
			continue
		}
		switch {
		case section == "out" && line != "(empty)":
			out = append(out, line)
		case section == "err" && line != "(none)":
			errLines = append(errLines, line)
		}
	}
	parts := append(out, errLines...)
	if exit != "" {
		parts = append([]string{exit}, parts...)
	}
	return strings.Join(parts, "\n")
}

// qwenPrompt is the text the user wrote in a prompt record: the
// systemPayload's displayText when a hook added context (the record's
// parts then hold the hook's text too), else the record's text parts
// without a last part that is wholly the hook's tagged context. ok is
// false for a record with no text part (a tool result carried as a user
// message).
func qwenPrompt(parts, payload []byte) (string, bool) {
	if jsonscan.IsString(jsonscan.Field(payload, "hookContext")) {
		if d := jsonscan.Field(payload, "displayText"); jsonscan.IsString(d) {
			return jsonscan.StrOr(d), true
		}
	}
	var text []string
	for p := range jsonscan.EachElement(parts) {
		if t := jsonscan.Field(p, "text"); jsonscan.IsString(t) {
			text = append(text, jsonscan.StrOr(t))
		}
	}
	if len(text) == 0 {
		return "", false
	}
	if last := strings.TrimSpace(text[len(text)-1]); len(text) > 1 && strings.HasPrefix(last, qwenHookContext) {
		text = text[:len(text)-1]
	}
	return joinLines(text), true
}
