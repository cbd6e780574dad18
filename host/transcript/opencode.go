package transcript

import (
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// opencodeReader reads an opencode session as ctxgit's opencode plugin
// exports it (docs/HOSTS.md, "Transcripts", "opencode"): one line per
// message, {info, parts}, as opencode's API returns them
// (client.session.messages; seen in 1.18.33). opencode itself keeps them
// in its database, which ctxgit does not read.
//
//   - info {id, role: user | assistant, time, summary, mode, tokens
//     {input, output, reasoning, cache {read, write}}}: an assistant
//     message is one step; its tokens are that request's usage, input
//     without the cache reads. The summary a compaction writes is an
//     assistant message with summary: true;
//   - parts: text {text, synthetic}, tool {callID, tool, state {status:
//     pending | running | completed | error, input, output, error,
//     metadata, time {start, end}}}, compaction {auto} (the user message
//     a compaction starts with), and step-start, step-finish, patch,
//     reasoning, which say nothing here.
type opencodeReader struct{ st *state }

func (o *opencodeReader) finish() {}

func (o *opencodeReader) line(n int, line []byte) bool {
	var info, parts []byte
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "info":
			info = val
		case "parts":
			parts = val
		}
	}
	if !m.Whole() || info == nil {
		return false
	}
	o.st.when = jsonscan.Path(info, "time", "created")
	if cwd := jsonscan.StrOr(jsonscan.Path(info, "path", "cwd")); cwd != "" {
		o.st.cwd = cwd
	}
	id := jsonscan.StrOr(jsonscan.Field(info, "id"))
	switch jsonscan.StrOr(jsonscan.Field(info, "role")) {
	case "user":
		o.user(parts)
	case "assistant":
		if jsonscan.IsTrue(jsonscan.Field(info, "summary")) {
			return true // the compaction's summary: the host's
		}
		if tokens := jsonscan.Field(info, "tokens"); tokens != nil {
			u := tail.OpenCodeUsage(tokens)
			u.MessageID = id
			o.st.usage(u)
		}
		var text []string
		for p := range jsonscan.EachElement(parts) {
			switch jsonscan.StrOr(jsonscan.Field(p, "type")) {
			case "text":
				if !jsonscan.IsTrue(jsonscan.Field(p, "synthetic")) {
					text = append(text, jsonscan.StrOr(jsonscan.Field(p, "text")))
				}
			case "tool":
				o.tool(n, p)
			}
		}
		if s := joinLines(text); strings.TrimSpace(s) != "" {
			o.st.thread.assistant(id, s)
		}
	}
	return true
}

// user reads a user message: a compaction part marks a compaction; the
// text parts the user wrote are a prompt; a message whose text is all
// opencode's own (synthetic: the "Continue if you have next steps" after a
// compaction, a plugin's) is the host's.
func (o *opencodeReader) user(parts []byte) {
	var text []string
	host := false
	for p := range jsonscan.EachElement(parts) {
		switch jsonscan.StrOr(jsonscan.Field(p, "type")) {
		case "compaction":
			o.st.compaction()
			return
		case "text":
			if jsonscan.IsTrue(jsonscan.Field(p, "synthetic")) {
				host = true
				continue
			}
			text = append(text, jsonscan.StrOr(jsonscan.Field(p, "text")))
		}
	}
	switch {
	case len(text) > 0 && !hostCommand(OpenCode, joinLines(text)):
		o.st.prompt(joinLines(text))
	case len(text) > 0 || host:
		o.st.s.HostMessages++
	}
}

// tool reads a tool part: the call, and its outcome once it has one. A
// call fails when its state says error, or when bash's command exited
// with a code other than 0 (metadata.exit; opencode reports such a call
// completed); its text is then the error, or bash's own output (the
// tool's output may carry what plugins appended, ctxgit's nudge among
// it).
func (o *opencodeReader) tool(n int, p []byte) {
	callID, name := jsonscan.StrOr(jsonscan.Field(p, "callID")), jsonscan.StrOr(jsonscan.Field(p, "tool"))
	state := jsonscan.Field(p, "state")
	input := jsonscan.Field(state, "input")
	o.st.toolCall(callID, name, false)
	o.st.callInput(callID, name, input)
	o.st.planCall(name, input)
	if end := jsonscan.Path(state, "time", "end"); end != nil {
		o.st.when = end
	}
	meta := jsonscan.Field(state, "metadata")
	switch jsonscan.StrOr(jsonscan.Field(state, "status")) {
	case "completed":
		exit, hasExit := jsonscan.Num(jsonscan.Field(meta, "exit"))
		if name != "bash" || !hasExit || exit == 0 {
			o.st.toolResult(callID, name, outcome{}, n)
			return
		}
		o.st.toolResult(callID, name, outcome{failed: true, exit: int(exit), hasExit: true, text: func() string {
			return jsonscan.StrOr(jsonscan.Field(meta, "output"))
		}}, n)
	case "error":
		o.st.toolResult(callID, name, outcome{failed: true, text: func() string {
			return jsonscan.StrOr(jsonscan.Field(state, "error"))
		}}, n)
	}
}
