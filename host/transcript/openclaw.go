package transcript

import (
	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// openclawReader reads an OpenClaw session (docs/HOSTS.md, "Transcripts",
// HOSTS.md "OpenClaw"): a header {type: "session", version, id, cwd}, then
// entries {type, id, parentId, …}; type message holds message.role user,
// assistant (content blocks text / thinking / toolCall {id, name, arguments},
// usage {input, output, cacheRead, cacheWrite}) or toolResult (toolCallId,
// isError); type compaction marks a compaction.
type openclawReader struct{ st *state }

func (c *openclawReader) finish() {}

func (c *openclawReader) line(n int, line []byte) bool {
	var typ, id, message, cwd, ts []byte
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "timestamp":
			ts = val
		case "type":
			typ = val
		case "id":
			id = val
		case "message":
			message = val
		case "cwd":
			cwd = val
		}
	}
	if !m.Whole() {
		return false
	}
	c.st.when = ts
	switch jsonscan.StrOr(typ) {
	case "session":
		if s := jsonscan.StrOr(cwd); s != "" {
			c.st.cwd = s
		}
	case "compaction":
		c.st.compaction()
	case "message":
		c.message(n, jsonscan.StrOr(id), message)
	}
	return true
}

// openclawCallTypes are the content block types OpenClaw treats as tool
// calls (its transcript repair accepts all of them).
var openclawCallTypes = map[string]bool{"toolCall": true, "toolUse": true, "functionCall": true, "tool_use": true, "tool_call": true, "function_call": true}

func (c *openclawReader) message(n int, entryID string, msg []byte) {
	var role, content, usage, stop, callID, toolName, isErr []byte
	for key, val := range jsonscan.EachMember(msg) {
		switch string(key) {
		case "role":
			role = val
		case "content":
			content = val
		case "usage":
			usage = val
		case "stopReason":
			stop = val
		case "toolCallId":
			callID = val
		case "toolName":
			toolName = val
		case "isError":
			isErr = val
		}
	}
	switch jsonscan.StrOr(role) {
	case "user":
		text := codexText(content)
		if hostCommand(OpenClaw, text) {
			c.st.s.HostMessages++
			return
		}
		c.st.prompt(text)
	case "assistant":
		if usage != nil {
			u := tail.OpenClawKeys.Read(usage)
			u.MessageID = entryID
			c.st.usage(u)
		}
		var text []string
		for b := range jsonscan.EachElement(content) {
			t := jsonscan.StrOr(jsonscan.Field(b, "type"))
			switch {
			case t == "text":
				text = append(text, jsonscan.StrOr(jsonscan.Field(b, "text")))
			case openclawCallTypes[t]:
				name := jsonscan.StrOr(jsonscan.Field(b, "name"))
				callID := jsonscan.StrOr(jsonscan.Field(b, "id"))
				c.st.toolCall(callID, name, false)
				args := jsonscan.Field(b, "arguments")
				if args == nil {
					args = jsonscan.Field(b, "input")
				}
				c.st.callInput(callID, name, args)
			}
		}
		if jsonscan.IsString(content) {
			text = append(text, jsonscan.StrOr(content))
		}
		c.st.thread.assistant(entryID, joinLines(text))
		if jsonscan.KeyIs(stop, "aborted") {
			c.st.mark = true
		}
	case "toolResult":
		c.st.toolResult(jsonscan.StrOr(callID), jsonscan.StrOr(toolName), outcome{failed: jsonscan.IsTrue(isErr), text: func() string { return resultText(content) }}, n)
	}
}

func joinLines(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, p...)
	}
	return string(b)
}
