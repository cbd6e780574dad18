package transcript

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// claudeReader reads a Claude Code transcript (docs/HOSTS.md, "Transcripts",
// HOSTS.md "Claude Code"): lines typed user, assistant, system, progress and
// more; an assistant message is written once per content block, each line
// repeating the message id and usage; compaction is a system line with subtype
// compact_boundary followed by a user line with isCompactSummary.
//
// Every line of the conversation names its parent (parentUuid). A rewind
// or an edited prompt starts a new branch from an earlier line, and the
// old branch stays in the file: a prompt whose parent comes before the
// previous prompt abandons every prompt after that parent, so the thread
// and the turn count are rolled back to what they were before the first
// of them (docs/HOSTS.md, "Transcripts", "The live branch").
type claudeReader struct {
	st     *state
	cwdRaw []byte // the last raw cwd seen, to decode it only when it changes

	// lineOf maps a main-session line's uuid (hashed) to its line number,
	// so a prompt's parent can be placed before or after earlier prompts.
	// The hash is fixed (uuidHash), so a saved reading can resume with it.
	lineOf map[uint64]int32
	// marks are the conversation's state before each prompt, the newest
	// maxMarks, to roll back to when a later prompt abandons them.
	marks []promptMark
	// queued are prompts the user queued and that were counted at their
	// queue time; the same text arriving later as a user line or a
	// queued_command attachment is their delivery, not a new prompt.
	queued []string
}

// promptMark is the conversation's state just before a prompt.
type promptMark struct {
	line   int
	turns  int
	mark   bool
	thread *threadBuilder
}

const (
	maxMarks    = 256
	maxQueued   = 16
	maxLineRefs = 1 << 20
)

func newClaudeReader(st *state) *claudeReader {
	return &claudeReader{st: st, lineOf: map[uint64]int32{}}
}

func (c *claudeReader) finish() {}

// claudeLine is what ctxgit reads of a Claude Code line: raw members,
// and the flags decoded. The reader and the tail probe both read lines
// through it, so they see the same line.
type claudeLine struct {
	typ, subtype, message, cwd, uuid, parent, op, content, attachment, timestamp []byte
	side, compactSummary, meta                                                   bool
}

// readClaudeLine picks a line's members; ok is whether the line is one
// valid object and nothing more.
func readClaudeLine(line []byte) (l claudeLine, ok bool) {
	m := jsonscan.ObjectMembers(line)
	for key, val := range m.All() {
		switch string(key) {
		case "type":
			l.typ = val
		case "subtype":
			l.subtype = val
		case "message":
			l.message = val
		case "cwd":
			l.cwd = val
		case "isSidechain":
			l.side = jsonscan.IsTrue(val)
		case "isCompactSummary":
			l.compactSummary = jsonscan.IsTrue(val)
		case "isMeta", "isVisibleInTranscriptOnly":
			l.meta = l.meta || jsonscan.IsTrue(val)
		case "uuid":
			l.uuid = val
		case "parentUuid":
			l.parent = val
		case "operation":
			l.op = val
		case "content":
			l.content = val
		case "attachment":
			l.attachment = val
		case "timestamp":
			l.timestamp = val
		}
	}
	return l, m.Whole()
}

// claudeBlock is what ctxgit reads of a message content block: text
// {text}, tool_use {id, name, input} or tool_result {tool_use_id,
// is_error, content}.
type claudeBlock struct {
	typ, text, id, name, input, toolUseID, isError, content []byte
}

func readClaudeBlock(b []byte) (blk claudeBlock) {
	for key, val := range jsonscan.EachMember(b) {
		switch string(key) {
		case "type":
			blk.typ = val
		case "text":
			blk.text = val
		case "id":
			blk.id = val
		case "name":
			blk.name = val
		case "input":
			blk.input = val
		case "tool_use_id":
			blk.toolUseID = val
		case "is_error":
			blk.isError = val
		case "content":
			blk.content = val
		}
	}
	return blk
}

func (c *claudeReader) line(n int, line []byte) bool {
	l, ok := readClaudeLine(line)
	if !ok {
		return false
	}
	if l.cwd != nil && !bytes.Equal(l.cwd, c.cwdRaw) {
		c.cwdRaw = append(c.cwdRaw[:0], l.cwd...)
		c.st.cwd = jsonscan.StrOr(l.cwd)
	}
	c.st.when = l.timestamp
	if !l.side && jsonscan.IsString(l.uuid) && len(c.lineOf) < maxLineRefs {
		c.lineOf[uuidHash(l.uuid)] = int32(n)
	}
	switch {
	case jsonscan.KeyIs(l.typ, "assistant"):
		c.assistant(l.message, l.side)
	case jsonscan.KeyIs(l.typ, "user"):
		c.user(n, l.message, l.parent, l.side, l.compactSummary, l.meta)
	case jsonscan.KeyIs(l.typ, "system") && jsonscan.KeyIs(l.subtype, "compact_boundary"):
		c.st.compaction()
	case jsonscan.KeyIs(l.typ, "queue-operation") && jsonscan.KeyIs(l.op, "enqueue") && jsonscan.IsString(l.content):
		// A prompt typed while the agent was busy: it counts when queued.
		text, kind := userText([]string{jsonscan.StrOr(l.content)})
		if kind != "" {
			c.st.s.HostMessages++
			return true
		}
		c.prompt(n, nil, text, true)
		if len(c.queued) == maxQueued {
			c.queued = c.queued[1:]
		}
		c.queued = append(c.queued, text)
	case jsonscan.KeyIs(l.typ, "attachment") && jsonscan.KeyIs(jsonscan.Field(l.attachment, "type"), "queued_command") && !l.side:
		// A queued prompt handed to the model in the middle of a turn.
		if p := jsonscan.Field(l.attachment, "prompt"); jsonscan.IsString(p) {
			text, kind := userText([]string{jsonscan.StrOr(p)})
			if kind != "" {
				c.st.s.HostMessages++
				return true
			}
			c.prompt(n, l.parent, text, false)
		}
	}
	return true
}

// parentLine is the line of the parent a line names: 0 for an explicit
// null (a new root: the conversation restarted from its beginning), and
// not ok when the line names none or one not seen.
func (c *claudeReader) parentLine(parent []byte) (int, bool) {
	if string(parent) == "null" {
		return 0, true
	}
	if !jsonscan.IsString(parent) {
		return 0, false
	}
	pl, ok := c.lineOf[uuidHash(parent)]
	return int(pl), ok
}

// prompt records a prompt the user wrote at line n, first rolling back the
// prompts its parent abandons, and leaving out the delivery of a prompt
// already counted when it was queued.
func (c *claudeReader) prompt(n int, parent []byte, text string, queuing bool) {
	if i := slices.Index(c.queued, text); i >= 0 && !queuing {
		c.queued = slices.Delete(c.queued, i, i+1)
		c.st.promptSeen()
		return
	}
	if pl, ok := c.parentLine(parent); ok && len(c.marks) > 0 {
		if pl < c.marks[len(c.marks)-1].line {
			i := sort.Search(len(c.marks), func(i int) bool { return c.marks[i].line > pl })
			if i == 0 && c.marks[0].thread == nil {
				// Older than every mark kept: nothing to roll back to.
				i = len(c.marks)
			}
			if i < len(c.marks) {
				pm := c.marks[i]
				c.st.s.Turns, c.st.mark, c.st.thread = pm.turns, pm.mark, pm.thread
				c.st.s.AbandonedPrompts += len(c.marks) - i
				c.marks = c.marks[:i]
			}
		}
	}
	if len(c.marks) == maxMarks {
		// The oldest mark can no longer be rolled back to; its successor
		// keeps the place so older parents are still recognised.
		c.marks = append(c.marks[:0], c.marks[1:]...)
		c.marks[0].thread = nil
	}
	c.marks = append(c.marks, promptMark{line: n, turns: c.st.s.Turns, mark: c.st.mark, thread: c.st.thread.clone()})
	c.st.prompt(text)
}

func (c *claudeReader) assistant(msg []byte, side bool) {
	var id, content, usage []byte
	for key, val := range jsonscan.EachMember(msg) {
		switch string(key) {
		case "id":
			id = val
		case "content":
			content = val
		case "usage":
			usage = val
		}
	}
	msgID := jsonscan.StrOr(id)
	if !side && usage != nil {
		// Sidechain usage is a subagent's context, not this session's.
		u := tail.ClaudeKeys.Read(usage)
		u.MessageID = msgID
		c.st.usage(u)
	}
	var text strings.Builder
	if jsonscan.IsString(content) {
		text.WriteString(jsonscan.StrOr(content))
	}
	for b := range jsonscan.EachElement(content) {
		blk := readClaudeBlock(b)
		switch {
		case jsonscan.KeyIs(blk.typ, "text"):
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(jsonscan.StrOr(blk.text))
		case jsonscan.KeyIs(blk.typ, "tool_use"):
			name := jsonscan.StrOr(blk.name)
			c.st.toolCall(jsonscan.StrOr(blk.id), name, side)
			c.st.callInput(jsonscan.StrOr(blk.id), name, blk.input)
			if !side {
				c.st.planCall(name, blk.input)
			}
		}
	}
	if !side {
		c.st.thread.assistant(msgID, text.String())
	}
}

func (c *claudeReader) user(n int, msg, parent []byte, side, compactSummary, meta bool) {
	content := jsonscan.Field(msg, "content")
	// A compaction summary, a host note or a subagent's message is not the
	// user speaking: it is neither a prompt nor an interruption.
	quiet := side || compactSummary || meta
	if jsonscan.IsString(content) {
		text := jsonscan.StrOr(content)
		switch {
		case side:
		case quiet:
			c.st.s.HostMessages++
		case isInterrupt(text):
			c.st.mark = true
		default:
			if t, kind := userText([]string{text}); kind != "" {
				c.st.s.HostMessages++
			} else {
				c.prompt(n, parent, t, false)
			}
		}
		return
	}
	var texts []string
	results := false
	blocks := jsonscan.ArrayElements(content)
	for b := range blocks.All() {
		blk := readClaudeBlock(b)
		switch {
		case jsonscan.KeyIs(blk.typ, "tool_result"):
			results = true
			id := jsonscan.StrOr(blk.toolUseID)
			switch {
			case jsonscan.IsTrue(blk.isError) && startsWith(blk.content, rejectionMarker):
				c.st.toolRejected(id)
			default:
				c.st.toolResult(id, "", outcome{failed: jsonscan.IsTrue(blk.isError), text: func() string { return resultText(blk.content) }}, n)
			}
			if !quiet && startsWith(blk.content, interruptMarker) {
				c.st.mark = true
			}
		case jsonscan.KeyIs(blk.typ, "text"):
			texts = append(texts, jsonscan.StrOr(blk.text))
		}
	}
	if quiet {
		if !side && !results {
			c.st.s.HostMessages++
		}
		return
	}
	if isInterrupt(strings.Join(texts, "\n")) {
		c.st.mark = true
		return
	}
	if results || !blocks.IsArray() {
		return
	}
	text, kind := userText(texts)
	if kind != "" {
		c.st.s.HostMessages++
		return
	}
	c.prompt(n, parent, text, false)
}

// resultText is the text of a tool result's content: a string, or blocks
// of which the text ones count.
func resultText(raw []byte) string {
	if jsonscan.IsString(raw) {
		return jsonscan.StrOr(raw)
	}
	var b strings.Builder
	for el := range jsonscan.EachElement(raw) {
		if b.Len() >= prefixBytes {
			break
		}
		if jsonscan.IsString(el) {
			b.WriteString(prefix(jsonscan.StrOr(el), prefixBytes))
			b.WriteByte('\n')
			continue
		}
		if t := jsonscan.Field(el, "text"); t != nil {
			b.WriteString(prefix(jsonscan.StrOr(t), prefixBytes))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// startsWith checks whether a tool result's content (a string, or blocks
// of which the first is text) starts with marker, without decoding it.
func startsWith(raw []byte, marker string) bool {
	if !jsonscan.IsString(raw) {
		e := jsonscan.ArrayElements(raw)
		el, ok := e.Next()
		if !ok {
			return false
		}
		if raw = jsonscan.Field(el, "text"); raw == nil {
			return false
		}
	}
	return bytes.HasPrefix(raw[1:], []byte(marker))
}

// uuidHash is FNV-1a of a raw uuid: fixed across processes, unlike
// maphash, so the table survives in a saved reading (resume.go).
func uuidHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
