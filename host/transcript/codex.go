package transcript

import (
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// codexReader reads a Codex rollout (docs/HOSTS.md, "Transcripts", HOSTS.md
// "Codex CLI"): lines {timestamp, type, payload}; event_msg token_count
// carries info.last_token_usage and info.model_context_window; compacted marks
// a compaction; response_item payloads are messages, function calls and their
// outputs.
//
// Codex records a prompt twice: as an event_msg user_message, and as a
// response_item user message among others the host injects (instructions,
// environment context). The events are the better source, so the thread is
// built from both and the event-based one is kept when the rollout has
// such events; older rollouts without them fall back to the items.
type codexReader struct {
	st               *state
	ev, items        *threadBuilder
	evTurns, itTurns int

	// metaSeen is set by the rollout's first session_meta; copying while
	// the lines are a forked thread's copy of its parent's history.
	metaSeen, copying bool
	copiedPrompts     int

	// window is the newest token_count's model_context_window, for the
	// token_usage_record lines that carry none.
	window int64
}

func newCodexReader(st *state) *codexReader {
	return &codexReader{st: st, ev: st.thread, items: &threadBuilder{max: st.thread.max}}
}

func (c *codexReader) finish() {
	if c.evTurns > 0 {
		c.st.thread, c.st.s.Turns = c.ev, c.evTurns
	} else {
		c.st.thread, c.st.s.Turns = c.items, c.itTurns
	}
}

func (c *codexReader) line(n int, line []byte) bool {
	var typ, payload, ts []byte
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "type":
			typ = val
		case "payload":
			payload = val
		case "timestamp":
			ts = val
		}
	}
	c.st.when = ts
	if !m.Whole() {
		return false
	}
	t := jsonscan.StrOr(typ)
	if payload == nil && codexItemTypes[t] {
		// An old rollout: response items without the envelope.
		payload, t = line, "response_item"
	}
	switch t {
	case "session_meta", "turn_context":
		if cwd := jsonscan.StrOr(jsonscan.Field(payload, "cwd")); cwd != "" {
			c.st.cwd = cwd
		}
		switch {
		case t == "session_meta" && !c.metaSeen:
			// A forked thread's rollout starts with its own meta naming
			// the thread it was forked from, then a copy of that thread's
			// history: prompts in the copy are the parent's.
			c.metaSeen = true
			c.copying = jsonscan.IsString(jsonscan.Field(payload, "forked_from_id"))
		case t == "turn_context" && c.copying:
			// The copy keeps no turn context when the fork took the last
			// turns only; one when it took the whole history (Codex
			// keep_forked_rollout_item). The first one after the copy's
			// prompts begins the fork's own first turn.
			c.copying = c.copiedPrompts == 0
		}
	case "compacted":
		c.st.compaction()
	case "token_usage_record":
		// Written as each model response completes (Codex 0.169 and
		// later), before its tool calls run; the token_count event of the
		// same response comes only after them, so a PostToolUse hook that
		// read token_count alone would see the previous response's usage.
		u := tail.CodexKeys.Read(jsonscan.Field(payload, "usage"))
		u.ContextWindow = c.window
		c.st.usage(u)
	case "event_msg":
		c.event(payload)
	case "response_item":
		c.item(n, payload)
	}
	return true
}

func (c *codexReader) event(p []byte) {
	switch jsonscan.StrOr(jsonscan.Field(p, "type")) {
	case "task_started":
		if w, ok := tail.CodexWindow(p); ok {
			c.window = w
		}
	case "token_count":
		if u, ok := tail.CodexUsage(p); ok {
			if u.ContextWindow > 0 {
				c.window = u.ContextWindow
			}
			c.st.usage(u)
		}
	case "user_message":
		if c.copying {
			c.copiedPrompts++
			return
		}
		text := ideRequest(jsonscan.StrOr(jsonscan.Field(p, "message")))
		if hostCommand(Codex, text) {
			// `codex exec "/compact"` sends the command as text.
			c.st.s.HostMessages++
			return
		}
		c.evTurns++
		c.st.promptSeen()
		c.ev.prompt(text)
	case "turn_aborted":
		c.st.mark = true
	}
}

func (c *codexReader) item(n int, p []byte) {
	var typ, role, content, name, args, input, callID, output []byte
	for key, val := range jsonscan.EachMember(p) {
		switch string(key) {
		case "type":
			typ = val
		case "role":
			role = val
		case "content":
			content = val
		case "name":
			name = val
		case "arguments":
			args = val
		case "input":
			input = val
		case "call_id":
			callID = val
		case "output":
			output = val
		}
	}
	switch jsonscan.StrOr(typ) {
	case "message":
		text := codexText(content)
		switch jsonscan.StrOr(role) {
		case "user":
			// Injected context comes wrapped in one tag (<environment_context>
			// …); a structural test, not a list of words.
			if t := strings.TrimSpace(text); wholeTag(t) || agentsInstructions(t) || hostCommand(Codex, ideRequest(t)) {
				return
			}
			if c.copying {
				return
			}
			c.itTurns++
			c.items.prompt(ideRequest(text))
			if c.evTurns == 0 {
				c.st.promptSeen()
			}
		case "assistant":
			c.ev.assistant("", text)
			c.items.assistant("", text)
		}
	case "function_call":
		tool := jsonscan.StrOr(name)
		c.st.toolCall(jsonscan.StrOr(callID), tool, false)
		c.st.callInput(jsonscan.StrOr(callID), tool, args)
		if tool == "update_plan" {
			c.st.planCall(tool, args)
		}
	case "custom_tool_call":
		tool := jsonscan.StrOr(name)
		c.st.toolCall(jsonscan.StrOr(callID), tool, false)
		c.st.callInput(jsonscan.StrOr(callID), tool, input)
	case "local_shell_call":
		// {call_id, status, action: {type: exec, command: [argv]}}.
		c.st.toolCall(jsonscan.StrOr(callID), "local_shell", false)
		c.st.callInput(jsonscan.StrOr(callID), "local_shell", jsonscan.Field(p, "action"))
	case "function_call_output", "custom_tool_call_output":
		c.st.toolResult(jsonscan.StrOr(callID), "", codexOutput(output), n)
	}
}

// codexText joins the text blocks (input_text, output_text, text) of a
// message's content.
func codexText(content []byte) string {
	if jsonscan.IsString(content) {
		return jsonscan.StrOr(content)
	}
	var parts []string
	for b := range jsonscan.EachElement(content) {
		switch jsonscan.StrOr(jsonscan.Field(b, "type")) {
		case "input_text", "output_text", "text":
			parts = append(parts, jsonscan.StrOr(jsonscan.Field(b, "text")))
		}
	}
	return strings.Join(parts, "\n")
}

// codexOutput reads a function call output: whether it failed, its exit
// status when it says, and its text. Outputs come as a string holding
// {"output", "metadata": {"exit_code"}}, as plain text with a header
// naming the exit code (shellExitCode), as content items holding such
// text, or as an object {content, success}.
func codexOutput(raw []byte) outcome {
	var s string
	switch {
	case jsonscan.IsString(raw):
		s = jsonscan.StrOr(raw)
	case len(raw) > 0 && raw[0] == '[':
		// Content items ([{type: input_text, text}]), as the payload is
		// written when the tool returned items: their text is the output.
		s = codexText(raw)
	default:
		return outcome{failed: string(jsonscan.Field(raw, "success")) == "false", text: func() string { return codexText(jsonscan.Field(raw, "content")) }}
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		b := []byte(t)
		if code, ok := jsonscan.Num(jsonscan.Path(b, "metadata", "exit_code")); ok {
			return outcome{failed: code != 0, exit: int(code), hasExit: true, text: func() string { return jsonscan.StrOr(jsonscan.Field(b, "output")) }}
		}
		if succ := jsonscan.Field(b, "success"); succ != nil {
			return outcome{failed: string(succ) == "false", text: func() string { return s }}
		}
	}
	if code, ok := shellExitCode(s); ok && code != 0 {
		return outcome{failed: true, exit: code, hasExit: true, text: func() string {
			if _, out, ok := strings.Cut(s, "Output:"); ok {
				return out
			}
			return s
		}}
	}
	return outcome{text: func() string { return s }}
}

// shellExitCode finds the exit code in the header of a shell result as
// Codex formats it as text: "Exit code: N" (the shell tool's
// format_exec_output), or "Process exited with code N" among the lines
// "Chunk ID: …", "Wall time: …", "Original token count: …" of
// exec_command and write_stdin (unified exec format_response). The header
// ends at the line "Output:".
func shellExitCode(s string) (int, bool) {
	for i := 0; i < 8 && s != ""; i++ {
		line, rest, _ := strings.Cut(s, "\n")
		line = strings.TrimSpace(line)
		if line == "Output:" {
			break
		}
		for _, p := range []string{"Exit code: ", "Process exited with code "} {
			if v, ok := strings.CutPrefix(line, p); ok {
				if code, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return code, true
				}
			}
		}
		s = rest
	}
	return 0, false
}

// ideRequestMarker heads the user's own words in a prompt the Codex IDE
// extension (and the Codex app) wraps in context: "# Context from my IDE
// setup:" with "## Open tabs:", "## Active file:", "## Selection:" …, or
// "# Files mentioned by the user:", then this line and the request
// (docs/HOSTS.md, "Transcripts", "Codex: the IDE wrapper").
const ideRequestMarker = "## My request for Codex:"

// ideRequest is the request a wrapped prompt carries: the text after the
// last marker line, when the prompt opens with a "# " heading (the
// wrapper's); any other prompt is kept whole.
func ideRequest(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "# ") {
		return text
	}
	i := strings.LastIndex(t, "\n"+ideRequestMarker)
	if i < 0 {
		return text
	}
	rest := t[i+1+len(ideRequestMarker):]
	if rest != "" && rest[0] != '\n' && rest[0] != '\r' && rest[0] != ' ' {
		// A longer heading that only starts like the marker.
		return text
	}
	return strings.TrimSpace(rest)
}

// wholeTag reports whether t is one tag's block (<environment_context>…).
func wholeTag(t string) bool { return strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") }

// agentsHeading opens the user message in which Codex sends a project's
// AGENTS.md: "# AGENTS.md instructions for DIR", a blank line, and the
// file inside <INSTRUCTIONS>…</INSTRUCTIONS> (docs/HOSTS.md,
// "Transcripts"; a real Codex 0.77 rollout writes it before the first
// prompt). Injected context, as a message wholly one tag is: not a prompt.
const agentsHeading = "# AGENTS.md instructions for "

func agentsInstructions(t string) bool {
	head, rest, ok := strings.Cut(t, "\n")
	return ok && strings.HasPrefix(head, agentsHeading) && wholeTag(strings.TrimSpace(rest))
}
