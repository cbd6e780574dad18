package transcript

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/ctxgit/ctxgit/spec"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// DefaultTailBytes is how far back TailUsage looks when maxBack <= 0.
const DefaultTailBytes = 16 << 20

// tailChunk is the size of the blocks TailUsage reads, newest first.
const tailChunk = 64 << 10

// TailUsage finds the newest usage after the last compaction by reading
// backwards from the end in chunks, so that the gauge, asked on every
// tool call, costs the same on a 100 MB transcript as on a small one. It
// stops at the first usable assistant usage line (ok = true), at a
// compaction boundary (ok = false: usage before a compaction is stale), or
// after maxBack bytes (ok = false; maxBack <= 0 means DefaultTailBytes).
// It agrees with Read: the usage it finds is Summary.Usage.
func TailUsage(path string, f Format, maxBack int64) (u Usage, ok bool, err error) {
	if !f.known() {
		return Usage{}, false, &spec.FileError{Path: path, Err: spec.Invalid("unknown transcript format %q", f)}
	}
	fh, err := os.Open(path)
	if err != nil {
		return Usage{}, false, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return Usage{}, false, err
	}
	u, ok, err = tailUsage(fh, fi.Size(), f, maxBack)
	if err != nil {
		return Usage{}, false, &spec.FileError{Path: path, Err: err}
	}
	return u, ok, nil
}

// tailUsage is TailUsage on any ReaderAt, so tests can count what it reads.
func tailUsage(r io.ReaderAt, size int64, f Format, maxBack int64) (Usage, bool, error) {
	if f == Gemini && legacyDocument(bufio.NewReader(io.NewSectionReader(r, 0, size))) {
		// The older Gemini layout is one document: no line of its tail
		// stands alone, so it is read whole (it predates long sessions
		// being recorded as lines).
		s, err := Read(io.NewSectionReader(r, 0, size), f, ReadOptions{})
		if err != nil {
			return Usage{}, false, err
		}
		return s.Usage, s.UsageKnown, nil
	}
	if maxBack <= 0 {
		maxBack = DefaultTailBytes
	}
	s := &tailSearch{probe: tailProbes[f]}
	var carry []byte // the start of a line that began before the bytes read so far
	pos := size
	for pos > 0 && size-pos < maxBack {
		// Grow the read with a long line, so that a line of L bytes costs
		// O(L) copying, not O(L²/chunk).
		n := max(int64(tailChunk), int64(len(carry)))
		n = min(n, pos, maxBack-(size-pos))
		pos -= n
		data := make([]byte, int(n)+len(carry))
		if _, err := r.ReadAt(data[:n], pos); err != nil && err != io.EOF {
			return Usage{}, false, err
		}
		copy(data[n:], carry)
		end := len(data)
		for {
			i := bytes.LastIndexByte(data[:end], '\n')
			if i < 0 {
				break
			}
			if s.visit(data[i+1 : end]) {
				return s.u, s.ok, nil
			}
			end = i
		}
		if pos == 0 {
			s.visit(data[:end])
			return s.u, s.ok, nil
		}
		carry = data[:end]
	}
	return s.u, s.ok, nil
}

// tailSearch is one backward search: the usage found, and whether it
// still waits for a window from an older line.
type tailSearch struct {
	probe     tailProbe
	u         Usage
	ok, found bool
}

// visit looks at one line, newest first; done ends the search.
func (s *tailSearch) visit(line []byte) (done bool) {
	if s.found {
		// A usage line without a window (Codex's token_usage_record)
		// takes the newest window an older line reported, as Read does.
		if w := s.probe.window(bytes.TrimSpace(line)); w > 0 {
			s.u.ContextWindow = w
			return true
		}
		return false
	}
	u, ok, stop := s.probe.check(line)
	if !stop {
		return false
	}
	s.u, s.ok = u, ok
	if ok && u.ContextWindow == 0 && s.probe.window != nil {
		s.found = true
		return false
	}
	return true
}

// tailProbe recognises, in one line, a usable usage or a compaction.
type tailProbe struct {
	// marks are byte strings one of which a line must contain to matter:
	// most lines are skipped without being parsed.
	marks [2][]byte
	probe func(line []byte) (u Usage, usable, boundary bool)
	// window, where set, reads the context window a line reports, for a
	// usage found without one.
	window func(line []byte) int64
}

// check reports stop = true when the search ends at this line.
func (p tailProbe) check(line []byte) (u Usage, ok, stop bool) {
	line = bytes.TrimSpace(line)
	// A \u escape can spell any key or value, so a line holding one is
	// parsed whatever its bytes say.
	if len(line) == 0 || !bytes.Contains(line, p.marks[0]) && !bytes.Contains(line, p.marks[1]) && !bytes.Contains(line, []byte(`\u`)) {
		return Usage{}, false, false
	}
	if !jsonscan.ValidLine(line) {
		return Usage{}, false, false
	}
	u, usable, boundary := p.probe(line)
	switch {
	case boundary:
		return Usage{}, false, true
	case usable:
		return u, true, true
	}
	return Usage{}, false, false
}

var tailProbes = map[Format]tailProbe{
	ClaudeCode: {marks: [2][]byte{[]byte(`"usage"`), []byte(`compact_boundary`)}, probe: claudeProbe},
	Codex:      {marks: [2][]byte{[]byte(`token_`), []byte(`compacted`)}, probe: codexProbe, window: codexWindow},
	OpenClaw:   {marks: [2][]byte{[]byte(`"usage"`), []byte(`compaction`)}, probe: openclawProbe},
	Gemini:     {marks: [2][]byte{[]byte(`"tokens"`), []byte(`"$set"`)}, probe: geminiProbe},
	QwenCode:   {marks: [2][]byte{[]byte(`"usageMetadata"`), []byte(`chat_compression`)}, probe: qwenProbe},
	Copilot:    {marks: [2][]byte{[]byte(`session.usage_record`), []byte(`session.compaction_complete`)}, probe: copilotProbe},
	OpenCode:   {marks: [2][]byte{[]byte(`"tokens"`), []byte(`"compaction"`)}, probe: opencodeProbe},
}

// The probes read a line exactly as Read does (same usage functions, same
// sidechain rule, same "usable" test), so the two always agree.

func claudeProbe(line []byte) (Usage, bool, bool) {
	l, _ := readClaudeLine(line)
	switch {
	case jsonscan.KeyIs(l.typ, "system") && jsonscan.KeyIs(l.subtype, "compact_boundary"):
		return Usage{}, false, true
	case jsonscan.KeyIs(l.typ, "assistant") && !l.side:
		usage := jsonscan.Field(l.message, "usage")
		if usage == nil {
			return Usage{}, false, false
		}
		u := claudeUsageKeys.read(usage)
		u.MessageID = jsonscan.StrOr(jsonscan.Field(l.message, "id"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}

func codexProbe(line []byte) (Usage, bool, bool) {
	switch jsonscan.StrOr(jsonscan.Field(line, "type")) {
	case "compacted":
		return Usage{}, false, true
	case "token_usage_record":
		u := codexUsageKeys.read(jsonscan.Field(jsonscan.Field(line, "payload"), "usage"))
		return u, u.Used() > 0, false
	case "event_msg":
		p := jsonscan.Field(line, "payload")
		if jsonscan.StrOr(jsonscan.Field(p, "type")) != "token_count" {
			return Usage{}, false, false
		}
		u, ok := codexUsage(p)
		return u, ok && u.Used() > 0, false
	}
	return Usage{}, false, false
}

// codexWindow is the window of a token_count line, 0 for any other.
func codexWindow(line []byte) int64 {
	if !bytes.Contains(line, []byte(`model_context_window`)) || !jsonscan.ValidLine(line) || jsonscan.StrOr(jsonscan.Field(line, "type")) != "event_msg" {
		return 0
	}
	p := jsonscan.Field(line, "payload")
	if jsonscan.StrOr(jsonscan.Field(p, "type")) != "token_count" {
		return 0
	}
	w, _ := jsonscan.Num(jsonscan.Field(jsonscan.Field(p, "info"), "model_context_window"))
	return w
}

func openclawProbe(line []byte) (Usage, bool, bool) {
	switch jsonscan.StrOr(jsonscan.Field(line, "type")) {
	case "compaction":
		return Usage{}, false, true
	case "message":
		msg := jsonscan.Field(line, "message")
		if jsonscan.StrOr(jsonscan.Field(msg, "role")) != "assistant" {
			return Usage{}, false, false
		}
		usage := jsonscan.Field(msg, "usage")
		if usage == nil {
			return Usage{}, false, false
		}
		u := openclawUsageKeys.read(usage)
		u.MessageID = jsonscan.StrOr(jsonscan.Field(line, "id"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}

// geminiProbe: a $set of the whole conversation ends the search (the
// usage before it is stale, as Read has it); a gemini message with tokens
// is the usage.
func geminiProbe(line []byte) (Usage, bool, bool) {
	if set := jsonscan.Field(line, "$set"); set != nil {
		return Usage{}, false, jsonscan.Field(set, "messages") != nil
	}
	if jsonscan.StrOr(jsonscan.Field(line, "type")) != "gemini" || !jsonscan.IsString(jsonscan.Field(line, "id")) {
		return Usage{}, false, false
	}
	u, ok := geminiUsage(jsonscan.Field(line, "tokens"))
	u.MessageID = jsonscan.StrOr(jsonscan.Field(line, "id"))
	u.ContextWindow = GeminiWindow(jsonscan.StrOr(jsonscan.Field(line, "model")))
	return u, ok && u.Used() > 0, false
}
