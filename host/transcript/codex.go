package transcript

import (
	"strconv"
	"strings"
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
	var typ, payload []byte
	m := objectMembers(line)
	for key, val := range m.all() {
		switch string(key) {
		case "type":
			typ = val
		case "payload":
			payload = val
		}
	}
	if !m.whole() {
		return false
	}
	t := strOr(typ)
	if payload == nil && codexItemTypes[t] {
		// An old rollout: response items without the envelope.
		payload, t = line, "response_item"
	}
	switch t {
	case "session_meta", "turn_context":
		if cwd := strOr(field(payload, "cwd")); cwd != "" {
			c.st.cwd = cwd
		}
		switch {
		case t == "session_meta" && !c.metaSeen:
			// A forked thread's rollout starts with its own meta naming
			// the thread it was forked from, then a copy of that thread's
			// history: prompts in the copy are the parent's.
			c.metaSeen = true
			c.copying = isString(field(payload, "forked_from_id"))
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
		u := codexUsageKeys.read(field(payload, "usage"))
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
	switch strOr(field(p, "type")) {
	case "token_count":
		if u, ok := codexUsage(p); ok {
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
		c.evTurns++
		c.st.promptSeen()
		c.ev.prompt(strOr(field(p, "message")))
	case "turn_aborted":
		c.st.mark = true
	}
}

// codexUsage reads a token_count event's info. cached_input_tokens is a
// part of input_tokens, so it is moved out of InputTokens (see Usage).
func codexUsage(p []byte) (Usage, bool) {
	info := field(p, "info")
	last := field(info, "last_token_usage")
	if last == nil {
		return Usage{}, false
	}
	u := codexUsageKeys.read(last)
	u.ContextWindow, _ = num(field(info, "model_context_window"))
	return u, true
}

func (c *codexReader) item(n int, p []byte) {
	var typ, role, content, name, args, input, callID, output []byte
	for key, val := range eachMember(p) {
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
	switch strOr(typ) {
	case "message":
		text := codexText(content)
		switch strOr(role) {
		case "user":
			// Injected context comes wrapped in one tag (<environment_context>
			// …); a structural test, not a list of words.
			if t := strings.TrimSpace(text); strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
				return
			}
			if c.copying {
				return
			}
			c.itTurns++
			c.items.prompt(text)
			if c.evTurns == 0 {
				c.st.promptSeen()
			}
		case "assistant":
			c.ev.assistant("", text)
			c.items.assistant("", text)
		}
	case "function_call":
		tool := strOr(name)
		c.st.toolCall(strOr(callID), tool, false)
		c.st.fileTool(tool, args)
		c.shellPatch(args)
		if tool == "update_plan" {
			c.st.planCall(tool, args)
		}
	case "custom_tool_call":
		tool := strOr(name)
		c.st.toolCall(strOr(callID), tool, false)
		c.st.fileTool(tool, input)
	case "local_shell_call":
		c.st.toolCall(strOr(callID), "local_shell", false)
	case "function_call_output", "custom_tool_call_output":
		failed, text := codexOutput(output)
		c.st.toolResult(strOr(callID), "", failed, func() string { return oneLine(text(), gistChars) }, n)
	}
}

// shellPatch records the files of a patch applied through the shell tool
// (command ["apply_patch", "<patch>"]), as older Codex versions did.
func (c *codexReader) shellPatch(args []byte) {
	if !isString(args) {
		return
	}
	a := []byte(strOr(args))
	e := arrayElements(field(a, "command"))
	first, ok := e.next()
	if !ok || strOr(first) != "apply_patch" {
		return
	}
	if patch, ok := e.next(); ok {
		c.st.patchFiles(strOr(patch))
	}
}

// codexText joins the text blocks (input_text, output_text, text) of a
// message's content.
func codexText(content []byte) string {
	if isString(content) {
		return strOr(content)
	}
	var parts []string
	for b := range eachElement(content) {
		switch strOr(field(b, "type")) {
		case "input_text", "output_text", "text":
			parts = append(parts, strOr(field(b, "text")))
		}
	}
	return strings.Join(parts, "\n")
}

// codexOutput tells whether a function call output is a failure, and
// returns a function for its text. Outputs come as a string holding
// {"output", "metadata": {"exit_code"}}, as plain text with a header
// naming the exit code (shellExitCode), as content items holding such
// text, or as an object {content, success}.
func codexOutput(raw []byte) (failed bool, text func() string) {
	var s string
	switch {
	case isString(raw):
		s = strOr(raw)
	case len(raw) > 0 && raw[0] == '[':
		// Content items ([{type: input_text, text}]), as the payload is
		// written when the tool returned items: their text is the output.
		s = codexText(raw)
	default:
		failed = string(field(raw, "success")) == "false"
		return failed, func() string { return codexText(field(raw, "content")) }
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		b := []byte(t)
		if code, ok := num(path(b, "metadata", "exit_code")); ok {
			return code != 0, func() string { return strOr(field(b, "output")) }
		}
		if succ := field(b, "success"); succ != nil {
			return string(succ) == "false", func() string { return s }
		}
	}
	if code, ok := shellExitCode(s); ok && code != 0 {
		return true, func() string {
			if _, out, ok := strings.Cut(s, "Output:"); ok {
				return out
			}
			return s
		}
	}
	return false, func() string { return s }
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
