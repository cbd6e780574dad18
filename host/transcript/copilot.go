package transcript

import (
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// copilotReader reads a GitHub Copilot CLI session record
// ($COPILOT_HOME/session-state/SESSION/events.jsonl, default ~/.copilot;
// docs/HOSTS.md, "Transcripts", "GitHub Copilot CLI"; seen in 1.0.102).
// Every line is an event {type, data, id, timestamp, parentId}:
//
//   - session.start and session.resume: data.context.cwd;
//   - user.message: data.content, what the user typed (transformedContent
//     adds the host's datetime and hooks' <system_reminder> context); slash
//     commands such as /compact are not recorded as messages;
//   - assistant.message: data.content and data.toolRequests [{toolCallId,
//     name, arguments}];
//   - tool.execution_complete: data.toolCallId, success, result.content,
//     shellExecution.exitCode, error, fileEdits [{path, kind}];
//   - session.usage_record: data.usage {inputTokens (cached tokens a part
//     of it), cacheReadTokens, outputTokens, maxPromptTokens,
//     interactionType};
//   - session.compaction_complete with success: a compaction;
//   - hook.start/hook.end, model.*, system.message and the rest: the
//     host's bookkeeping.
type copilotReader struct{ st *state }

func (c *copilotReader) finish() {}

func (c *copilotReader) line(n int, line []byte) bool {
	var typ, data, ts, id []byte
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "type":
			typ = val
		case "data":
			data = val
		case "timestamp":
			ts = val
		case "id":
			id = val
		}
	}
	if !m.Whole() {
		return false
	}
	c.st.when = ts
	switch jsonscan.StrOr(typ) {
	case "session.start", "session.resume":
		if cwd := jsonscan.StrOr(jsonscan.Path(data, "context", "cwd")); cwd != "" {
			c.st.cwd = cwd
		}
	case "user.message":
		text := jsonscan.StrOr(jsonscan.Field(data, "content"))
		if hostCommand(Copilot, text) {
			c.st.s.HostMessages++
			return true
		}
		c.st.prompt(text)
	case "assistant.message":
		if text := jsonscan.StrOr(jsonscan.Field(data, "content")); strings.TrimSpace(text) != "" {
			c.st.thread.assistant(jsonscan.StrOr(jsonscan.Field(data, "messageId")), text)
		}
		for r := range jsonscan.EachElement(jsonscan.Field(data, "toolRequests")) {
			callID, name := jsonscan.StrOr(jsonscan.Field(r, "toolCallId")), jsonscan.StrOr(jsonscan.Field(r, "name"))
			args := jsonscan.Field(r, "arguments")
			c.st.toolCall(callID, name, false)
			if name == "view" {
				// Copilot CLI's read tool; its create and edit are writes.
				if p := jsonscan.Field(args, "path"); jsonscan.IsString(p) {
					c.st.target(callID, jsonscan.StrOr(p))
					c.st.file(callID, false, jsonscan.StrOr(p))
				}
			} else {
				c.st.callInput(callID, name, args)
			}
			c.st.planCall(name, args)
		}
	case "tool.execution_complete":
		c.result(n, data)
	case "session.usage_record":
		usage, ok := tail.CopilotUsage(jsonscan.Field(data, "usage"))
		if !ok {
			return true // a subagent's or the host's own request, not the session's context
		}
		usage.MessageID = jsonscan.StrOr(id)
		c.st.usage(usage)
	case "session.compaction_complete":
		if jsonscan.IsTrue(jsonscan.Field(data, "success")) {
			c.st.compaction()
		}
	}
	return true
}

// result reads a tool.execution_complete: the files it edited count once
// it succeeded; it failed when success is false or its shell exited with
// a code other than 0.
func (c *copilotReader) result(n int, data []byte) {
	callID := jsonscan.StrOr(jsonscan.Field(data, "toolCallId"))
	// The result names only the call; the open call, its tool.
	name := c.st.open[callID].name
	for e := range jsonscan.EachElement(jsonscan.Field(data, "fileEdits")) {
		if p := jsonscan.Field(e, "path"); jsonscan.IsString(p) {
			c.st.file(callID, true, jsonscan.StrOr(p))
		}
	}
	exit, hasExit := jsonscan.Num(jsonscan.Path(data, "shellExecution", "exitCode"))
	failed := jsonscan.Field(data, "success") != nil && !jsonscan.IsTrue(jsonscan.Field(data, "success")) || hasExit && exit != 0
	if !failed {
		c.st.toolResult(callID, name, outcome{}, n)
		return
	}
	c.st.toolResult(callID, name, outcome{failed: true, exit: int(exit), hasExit: hasExit, text: func() string {
		if msg := jsonscan.Path(data, "error", "message"); jsonscan.IsString(msg) {
			return jsonscan.StrOr(msg)
		}
		if msg := jsonscan.Field(data, "error"); jsonscan.IsString(msg) {
			return jsonscan.StrOr(msg)
		}
		return copilotResultText(jsonscan.StrOr(jsonscan.Path(data, "result", "content")), name)
	}}, n)
}

// copilotResultText is a tool result's output without what the host adds
// to it: the shell's "<shellId: N completed with exit code C>" line, and
// the postToolUse hooks' context after "Tool "NAME" succeeded. Additional
// guidance from postToolUse hooks:" (ctxgit's own nudge among it).
func copilotResultText(s, tool string) string {
	if i := strings.Index(s, "\n\nTool \""+tool+"\" succeeded. Additional guidance from postToolUse hooks:"); i >= 0 {
		s = s[:i]
	}
	var kept []string
	for l := range strings.Lines(s) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "<shellId: ") && strings.HasSuffix(t, ">") {
			continue
		}
		kept = append(kept, strings.TrimRight(l, "\r\n"))
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}
