package transcript

import (
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// geminiReader reads a Gemini CLI chat recording (docs/HOSTS.md,
// "Transcripts"; Gemini CLI packages/core/src/services/chatRecordingService.ts
// and chatRecordingTypes.ts). The current layout is JSON Lines:
//
//   - a metadata record {sessionId, projectHash, startTime, lastUpdated,
//     kind, directories};
//   - message records {id, timestamp, type, content, displayContent} of
//     type user, gemini (with toolCalls [{id, name, args, result, status,
//     resultDisplay}], tokens {input, output, cached, thoughts, tool,
//     total} and model), info, error or warning. A message is appended
//     again, whole, each time it changes (its tokens arrive, a tool call
//     finishes): the newest copy of an id wins, in the place of the first;
//   - {$rewindTo: id}: the message id and every later one are removed;
//   - {$set: {…}}: a metadata update; with messages it replaces the whole
//     conversation (after a compression, or when tool output is masked).
//
// The older layout is one JSON document {sessionId, projectHash,
// startTime, lastUpdated, messages: […]}, read as one metadata record
// holding its messages.
type geminiReader struct {
	st *state
	// order lists the conversation's message ids in order; known marks
	// those read once (later copies are updates, not new messages), and
	// texted those whose text the thread already has.
	order  []string
	known  map[string]int // id → line of its first copy
	texted map[string]bool
	// calls maps a tool call id to whether its outcome was counted.
	calls map[string]bool
	marks []promptMark
	// doc is set while reading the messages of a one-document session,
	// index the message's place in it.
	doc   bool
	index int
}

func newGeminiReader(st *state) *geminiReader {
	return &geminiReader{st: st, known: map[string]int{}, texted: map[string]bool{}, calls: map[string]bool{}}
}

func (g *geminiReader) finish() {}

func (g *geminiReader) line(n int, line []byte) bool {
	var id, rewind, set, messages []byte
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "id":
			id = val
		case "$rewindTo":
			rewind = val
		case "$set":
			set = val
		case "messages":
			messages = val
		}
	}
	if !m.Whole() {
		return false
	}
	g.doc = false
	switch {
	case jsonscan.IsString(rewind):
		g.rewind(jsonscan.StrOr(rewind))
	case set != nil:
		if msgs := jsonscan.Field(set, "messages"); msgs != nil {
			g.replaced(n, msgs)
		}
	case jsonscan.IsString(id):
		g.message(n, line, true)
	case messages != nil:
		// The older layout: the whole conversation in the metadata. Its
		// one line places nothing: a failure is placed by its message's
		// index (a JSON pointer) instead.
		g.doc = true
		i := 0
		for el := range jsonscan.EachElement(messages) {
			g.index = i
			g.message(n, el, true)
			i++
		}
		g.doc = false
	}
	return true
}

// replaced reads a $set of the whole conversation. Usage read before it
// described a context that is gone; a shorter conversation is a
// compression. Messages it holds that were never recorded on their own
// lines are read (a recording may hold its conversation only there), but
// not their usage: the tail search stops at a $set too. The summary a
// compression adds is wholly one tag (<state_snapshot>…), which no prompt
// is (see message).
func (g *geminiReader) replaced(n int, msgs []byte) {
	prev := len(g.order)
	g.st.s.Usage, g.st.s.UsageKnown = Usage{}, false
	var ids []string
	for el := range jsonscan.EachElement(msgs) {
		id := jsonscan.StrOr(jsonscan.Field(el, "id"))
		ids = append(ids, id)
		if _, ok := g.known[id]; !ok {
			g.message(n, el, false)
		}
	}
	if len(ids) < prev {
		g.st.compaction()
	}
	g.order = ids
}

// rewind removes message id and every later one: prompts among them are rolled
// back as in Claude Code (docs/HOSTS.md, "Transcripts", "The live branch").
func (g *geminiReader) rewind(id string) {
	at := 0 // the line of the first removed message; 0 removes all
	for i, mid := range g.order {
		if mid == id {
			at = g.known[id]
			g.order = g.order[:i]
			break
		}
	}
	if at == 0 {
		g.order = g.order[:0]
	}
	for i, pm := range g.marks {
		if pm.line >= at {
			g.st.s.Turns, g.st.mark, g.st.thread = pm.turns, pm.mark, pm.thread
			g.st.s.AbandonedPrompts += len(g.marks) - i
			g.marks = g.marks[:i]
			break
		}
	}
}

// GeminiWindow is the context window of a Gemini CLI model, as the host
// counts it (tail.GeminiWindow).
func GeminiWindow(model string) int64 { return tail.GeminiWindow(model) }

// GeminiCompressAt is the share of the window at which Gemini CLI
// compresses its chat by default (tail.GeminiCompressAt).
const GeminiCompressAt = tail.GeminiCompressAt

// withoutHookContext drops what hooks added to a prompt: headless, Gemini
// CLI puts SessionStart's additionalContext before the prompt and
// BeforeAgent's after it, each as <hook_context>…</hook_context>
// (packages/cli/src/gemini.tsx; hooks/hookEventHandler.ts), and records
// the whole as the user's message. It is not what the user asked, and
// quoting it back would put a ctxgit block inside the next one.
func withoutHookContext(text string) string {
	const open, end = "<hook_context>", "</hook_context>"
	for {
		i := strings.Index(text, open)
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], end)
		if j < 0 {
			return text[:i] // cut off: the rest is the hook's
		}
		text = text[:i] + text[i+j+len(end):]
	}
}

// message reads one message record; usage is false for messages read
// from a $set (their token counts are history).
func (g *geminiReader) message(n int, raw []byte, usage bool) {
	var id, typ, content, display, toolCalls, tokens, ts, model []byte
	for key, val := range jsonscan.EachMember(raw) {
		switch string(key) {
		case "timestamp":
			ts = val
		case "model":
			model = val
		case "id":
			id = val
		case "type":
			typ = val
		case "content":
			content = val
		case "displayContent":
			display = val
		case "toolCalls":
			toolCalls = val
		case "tokens":
			tokens = val
		}
	}
	mid := jsonscan.StrOr(id)
	g.st.when = ts
	_, seen := g.known[mid]
	if !seen {
		g.known[mid] = n
		g.order = append(g.order, mid)
	}
	switch jsonscan.StrOr(typ) {
	case "user":
		if seen {
			return
		}
		// displayContent is what the user typed, before @file expansion.
		text := geminiText(display)
		if display == nil {
			text = geminiText(content)
		}
		prompt := withoutHookContext(text)
		hookOnly := prompt != text && strings.TrimSpace(prompt) == ""
		text = prompt
		if t := strings.TrimSpace(text); hookOnly || strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") || hostCommand(Gemini, t) {
			// Context the host injects comes wrapped in one tag
			// (<state_snapshot> after a compression): a structural test,
			// as for Codex, not a list of words. A host command is the
			// host's too: headless, `-p "/compress"` reaches the model as
			// this prompt while the chat is compressed.
			g.st.s.HostMessages++
			return
		}
		g.marks = append(g.marks, promptMark{line: n, turns: g.st.s.Turns, mark: g.st.mark, thread: g.st.thread.clone()})
		if len(g.marks) > maxMarks {
			g.marks = g.marks[1:]
		}
		g.st.prompt(text)
	case "gemini":
		if u, ok := tail.GeminiUsage(tokens); ok && usage {
			u.MessageID = mid
			u.ContextWindow = GeminiWindow(jsonscan.StrOr(model))
			g.st.usage(u)
		}
		if !g.texted[mid] {
			if text := geminiText(content); strings.TrimSpace(text) != "" {
				g.texted[mid] = true
				g.st.thread.assistant(mid, text)
			}
		}
		g.toolCalls(n, toolCalls)
	case "info", "error", "warning":
		if !seen {
			g.st.s.HostMessages++
		}
	}
}

// toolCalls reads a gemini message's calls: each is counted when first
// seen, and its outcome once it has one (success, error, or cancelled:
// the user declined or stopped it).
func (g *geminiReader) toolCalls(n int, raw []byte) {
	k := -1
	for c := range jsonscan.EachElement(raw) {
		k++
		id, name := jsonscan.StrOr(jsonscan.Field(c, "id")), jsonscan.StrOr(jsonscan.Field(c, "name"))
		done, seen := g.calls[id]
		if !seen {
			g.calls[id] = false
			g.st.toolCall(id, name, false)
			args := jsonscan.Field(c, "args")
			g.st.callInput(id, name, args)
			g.st.planCall(name, args)
		}
		if done {
			continue
		}
		if t := jsonscan.Field(c, "timestamp"); t != nil {
			g.st.when = t
		}
		switch jsonscan.StrOr(jsonscan.Field(c, "status")) {
		case "success":
			g.calls[id] = true
			g.st.toolResult(id, name, outcome{}, n)
		case "error":
			g.calls[id] = true
			if g.doc {
				g.st.at = "/messages/" + strconv.Itoa(g.index) + "/toolCalls/" + strconv.Itoa(k)
			}
			g.st.toolResult(id, name, outcome{failed: true, text: func() string { return geminiResultText(c) }}, n)
			g.st.at = ""
		case "cancelled":
			g.calls[id] = true
			g.st.toolRejected(id)
			g.st.mark = true
		}
	}
}

// geminiText joins the text of a PartListUnion: a string, a part {text},
// or a list of either.
func geminiText(raw []byte) string {
	if jsonscan.IsString(raw) {
		return jsonscan.StrOr(raw)
	}
	if len(raw) > 0 && raw[0] == '{' {
		return jsonscan.StrOr(jsonscan.Field(raw, "text"))
	}
	var parts []string
	for p := range jsonscan.EachElement(raw) {
		if jsonscan.IsString(p) {
			parts = append(parts, jsonscan.StrOr(p))
		} else if t := jsonscan.Field(p, "text"); jsonscan.IsString(t) {
			parts = append(parts, jsonscan.StrOr(t))
		}
	}
	return joinLines(parts)
}

// geminiResultText is a failed call's message: its resultDisplay when a
// string, else the error (or output) of its functionResponse.
func geminiResultText(call []byte) string {
	if d := jsonscan.Field(call, "resultDisplay"); jsonscan.IsString(d) {
		return jsonscan.StrOr(d)
	}
	for p := range jsonscan.EachElement(jsonscan.Field(call, "result")) {
		resp := jsonscan.Path(p, "functionResponse", "response")
		for _, k := range []string{"error", "output"} {
			if v := jsonscan.Field(resp, k); jsonscan.IsString(v) {
				return jsonscan.StrOr(v)
			}
		}
	}
	return ""
}
