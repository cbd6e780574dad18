package transcript

import (
	"bytes"
	"strings"
)

// claudeReader reads a Claude Code transcript (SPEC §15.5, HOSTS.md
// "Claude Code"): lines typed user, assistant, system, progress and more;
// an assistant message is written once per content block, each line
// repeating the message id and usage; compaction is a system line with
// subtype compact_boundary followed by a user line with isCompactSummary.
type claudeReader struct {
	st     *state
	cwdRaw []byte // the last raw cwd seen, to decode it only when it changes
}

func (c *claudeReader) finish() {}

func (c *claudeReader) line(n int, line []byte) bool {
	var typ, subtype, message, cwd []byte
	var side, compactSummary, meta bool
	m := objectMembers(line)
	for {
		key, val, ok := m.next()
		if !ok {
			break
		}
		switch string(keyText(key)) {
		case "type":
			typ = val
		case "subtype":
			subtype = val
		case "message":
			message = val
		case "cwd":
			cwd = val
		case "isSidechain":
			side = isTrue(val)
		case "isCompactSummary":
			compactSummary = isTrue(val)
		case "isMeta":
			meta = isTrue(val)
		}
	}
	if m.err || skipWS(line, m.end()) != len(line) {
		return false
	}
	if cwd != nil && !bytes.Equal(cwd, c.cwdRaw) {
		c.cwdRaw = append(c.cwdRaw[:0], cwd...)
		c.st.cwd = strOr(cwd)
	}
	switch {
	case keyIs(typ, "assistant"):
		c.assistant(message, side)
	case keyIs(typ, "user"):
		c.user(n, message, side, compactSummary, meta)
	case keyIs(typ, "system") && keyIs(subtype, "compact_boundary"):
		c.st.compaction()
	}
	return true
}

// claudeUsage reads message.usage. Sidechain usage is a subagent's
// context, not this session's, and is never passed here.
func claudeUsage(raw []byte) Usage {
	var u Usage
	m := objectMembers(raw)
	for {
		key, val, ok := m.next()
		if !ok {
			break
		}
		switch string(keyText(key)) {
		case "input_tokens":
			u.InputTokens, _ = num(val)
		case "cache_creation_input_tokens":
			u.CacheCreationTokens, _ = num(val)
		case "cache_read_input_tokens":
			u.CacheReadTokens, _ = num(val)
		case "output_tokens":
			u.OutputTokens, _ = num(val)
		}
	}
	return u
}

func (c *claudeReader) assistant(msg []byte, side bool) {
	var id, content, usage []byte
	m := objectMembers(msg)
	for {
		key, val, ok := m.next()
		if !ok {
			break
		}
		switch string(keyText(key)) {
		case "id":
			id = val
		case "content":
			content = val
		case "usage":
			usage = val
		}
	}
	msgID := strOr(id)
	if !side && usage != nil {
		u := claudeUsage(usage)
		u.MessageID = msgID
		c.st.usage(u)
	}
	var text strings.Builder
	if isString(content) {
		text.WriteString(strOr(content))
	}
	blocks := arrayElements(content)
	for {
		b, ok := blocks.next()
		if !ok {
			break
		}
		var bt, btext, bid, bname, binput []byte
		bm := objectMembers(b)
		for {
			key, val, ok := bm.next()
			if !ok {
				break
			}
			switch string(keyText(key)) {
			case "type":
				bt = val
			case "text":
				btext = val
			case "id":
				bid = val
			case "name":
				bname = val
			case "input":
				binput = val
			}
		}
		switch {
		case keyIs(bt, "text"):
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(strOr(btext))
		case keyIs(bt, "tool_use"):
			name := strOr(bname)
			c.st.toolCall(strOr(bid), name, side)
			c.st.fileTool(name, binput)
		}
	}
	if !side {
		c.st.thread.assistant(msgID, text.String())
	}
}

func (c *claudeReader) user(n int, msg []byte, side, compactSummary, meta bool) {
	content := field(msg, "content")
	// A compaction summary, a host note or a subagent's message is not the
	// user speaking: it is neither a prompt nor an interruption.
	quiet := side || compactSummary || meta
	if isString(content) {
		text := strOr(content)
		switch {
		case quiet:
		case isInterrupt(text):
			c.st.mark = true
		default:
			c.st.prompt(text)
		}
		return
	}
	var texts []string
	results := false
	blocks := arrayElements(content)
	for {
		b, ok := blocks.next()
		if !ok {
			break
		}
		var bt, btext, bid, berr, bcontent []byte
		bm := objectMembers(b)
		for {
			key, val, ok := bm.next()
			if !ok {
				break
			}
			switch string(keyText(key)) {
			case "type":
				bt = val
			case "text":
				btext = val
			case "tool_use_id":
				bid = val
			case "is_error":
				berr = val
			case "content":
				bcontent = val
			}
		}
		switch {
		case keyIs(bt, "tool_result"):
			results = true
			c.st.toolResult(strOr(bid), "", isTrue(berr), func() string { return oneLine(resultText(bcontent), gistChars) }, n)
			if !quiet && startsWithInterrupt(bcontent) {
				c.st.mark = true
			}
		case keyIs(bt, "text"):
			texts = append(texts, strOr(btext))
		}
	}
	if quiet {
		return
	}
	text := strings.Join(texts, "\n")
	switch {
	case isInterrupt(text):
		c.st.mark = true
	case !results && blocks.begun && !blocks.err:
		c.st.prompt(text)
	}
}

// resultText is the text of a tool result's content: a string, or blocks
// of which the text ones count.
func resultText(raw []byte) string {
	if isString(raw) {
		return strOr(raw)
	}
	var b strings.Builder
	e := arrayElements(raw)
	for b.Len() < prefixBytes {
		el, ok := e.next()
		if !ok {
			break
		}
		if isString(el) {
			b.WriteString(prefix(strOr(el), prefixBytes))
			b.WriteByte('\n')
			continue
		}
		if t := field(el, "text"); t != nil {
			b.WriteString(prefix(strOr(t), prefixBytes))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// startsWithInterrupt checks a tool result's content for the interruption
// marker without decoding it.
func startsWithInterrupt(raw []byte) bool {
	if !isString(raw) {
		e := arrayElements(raw)
		el, ok := e.next()
		if !ok {
			return false
		}
		if raw = field(el, "text"); raw == nil {
			return false
		}
	}
	return bytes.HasPrefix(raw[1:], []byte(interruptMarker))
}
