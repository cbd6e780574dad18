package hookpath

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// The gauge's reading from a transcript's tail, for the hosts whose
// tool-call hook reads one (Claude Code, Codex, Gemini CLI): the same
// backward search as transcript.TailUsage (host/transcript/tail.go), on
// the same scanner (internal/jsonscan, which host/transcript reads with
// too), so that the two binaries take the same reading. TestTailUsageAgrees (host/hooks)
// compares them on every transcript in host/transcript/testdata, cut at
// every line.

// Usage is a transcript's newest usage: the counters the gauge adds up
// (transcript.Usage.Used) and the window the transcript reports, if any.
type Usage struct {
	InputTokens, CacheCreationTokens, CacheReadTokens int64
	ContextWindow                                     int64
}

// Used is the context in use, as transcript.Usage.Used counts it.
func (u Usage) Used() int64 { return u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens }

// errLegacy is a Gemini recording in the older one-document layout, which
// transcript reads whole: ctxgit hook takes that reading.
var errLegacy = errors.New("gemini recording is one document")

// tailChunk and TailBytes as in host/transcript (tailChunk) and host/hooks
// (tailBytes, how far back the gauge looks).
const (
	tailChunk = 64 << 10
	TailBytes = 4 << 20
)

// TailUsage is transcript.TailUsage(path, format, TailBytes) for the
// transcript formats of host ("claude-code", "codex", "gemini"). Any
// error, and a host it has no reader for, is the caller's to hand over to
// ctxgit hook.
func TailUsage(path, host string) (Usage, bool, error) {
	probe, ok := tailProbeFor(host)
	if !ok {
		return Usage{}, false, errors.New("no transcript reader for " + host)
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
	return tailUsage(fh, fi.Size(), host, probe)
}

func tailUsage(r io.ReaderAt, size int64, host string, probe tailProbe) (Usage, bool, error) {
	if host == "gemini" && legacyDocument(bufio.NewReader(io.NewSectionReader(r, 0, size))) {
		return Usage{}, false, errLegacy
	}
	maxBack := int64(TailBytes)
	s := &tailSearch{probe: probe}
	var carry []byte
	pos := size
	for pos > 0 && size-pos < maxBack {
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

// legacyDocument: the first line is an opening brace that is not a whole
// object (transcript.legacyDocument).
func legacyDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(64 << 10)
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	first, _, _ := bytes.Cut(head, []byte{'\n'})
	return !jsonscan.ValidLine(first)
}

type tailSearch struct {
	probe     tailProbe
	u         Usage
	ok, found bool
}

func (s *tailSearch) visit(line []byte) (done bool) {
	if s.found {
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

type tailProbe struct {
	marks  [2][]byte
	probe  func(line []byte) (u Usage, usable, boundary bool)
	window func(line []byte) int64
}

func (p tailProbe) check(line []byte) (u Usage, ok, stop bool) {
	line = bytes.TrimSpace(line)
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

// tailProbeFor is the probe of host's transcript: a switch, not a map
// built at package init (the tool-call path does no package-level work).
func tailProbeFor(host string) (tailProbe, bool) {
	switch host {
	case "claude-code":
		return tailProbe{marks: [2][]byte{[]byte(`"usage"`), []byte(`compact_boundary`)}, probe: claudeProbe}, true
	case "codex":
		return tailProbe{marks: [2][]byte{[]byte(`token_`), []byte(`compacted`)}, probe: codexProbe, window: codexWindow}, true
	case "gemini":
		return tailProbe{marks: [2][]byte{[]byte(`"tokens"`), []byte(`"$set"`)}, probe: geminiProbe}, true
	}
	return tailProbe{}, false
}

// usageKeys names a host's counters (transcript.usageKeys).
type usageKeys struct {
	input, cacheRead, cacheWrite string
	readInInput                  bool
}

var (
	claudeUsageKeys = usageKeys{input: "input_tokens", cacheRead: "cache_read_input_tokens", cacheWrite: "cache_creation_input_tokens"}
	codexUsageKeys  = usageKeys{input: "input_tokens", cacheRead: "cached_input_tokens", readInInput: true}
	geminiUsageKeys = usageKeys{input: "input", cacheRead: "cached", readInInput: true}
)

func (k *usageKeys) read(raw []byte) Usage {
	var u Usage
	for key, val := range jsonscan.EachMember(raw) {
		switch string(key) {
		case "":
		case k.input:
			u.InputTokens, _ = jsonscan.Num(val)
		case k.cacheRead:
			u.CacheReadTokens, _ = jsonscan.Num(val)
		case k.cacheWrite:
			u.CacheCreationTokens, _ = jsonscan.Num(val)
		}
	}
	if k.readInInput {
		cached := min(max(u.CacheReadTokens, 0), max(u.InputTokens, 0))
		u.InputTokens, u.CacheReadTokens = u.InputTokens-cached, cached
	}
	return u
}

// claudeProbe reads a line as transcript's claudeProbe does, through the
// members readClaudeLine picks (type, subtype, message, isSidechain).
func claudeProbe(line []byte) (Usage, bool, bool) {
	var typ, subtype, message []byte
	side := false
	for key, val := range jsonscan.EachMember(line) {
		switch string(key) {
		case "type":
			typ = val
		case "subtype":
			subtype = val
		case "message":
			message = val
		case "isSidechain":
			side = jsonscan.IsTrue(val)
		}
	}
	switch {
	case jsonscan.KeyIs(typ, "system") && jsonscan.KeyIs(subtype, "compact_boundary"):
		return Usage{}, false, true
	case jsonscan.KeyIs(typ, "assistant") && !side:
		usage := jsonscan.Field(message, "usage")
		if usage == nil {
			return Usage{}, false, false
		}
		u := claudeUsageKeys.read(usage)
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
		info := jsonscan.Field(p, "info")
		last := jsonscan.Field(info, "last_token_usage")
		if last == nil {
			return Usage{}, false, false
		}
		u := codexUsageKeys.read(last)
		u.ContextWindow, _ = jsonscan.Num(jsonscan.Field(info, "model_context_window"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}

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

func geminiProbe(line []byte) (Usage, bool, bool) {
	if set := jsonscan.Field(line, "$set"); set != nil {
		return Usage{}, false, jsonscan.Field(set, "messages") != nil
	}
	if jsonscan.StrOr(jsonscan.Field(line, "type")) != "gemini" || !jsonscan.IsString(jsonscan.Field(line, "id")) {
		return Usage{}, false, false
	}
	raw := jsonscan.Field(line, "tokens")
	if raw == nil || raw[0] != '{' {
		return Usage{}, false, false
	}
	u := geminiUsageKeys.read(raw)
	u.ContextWindow = GeminiWindow(jsonscan.StrOr(jsonscan.Field(line, "model")))
	return u, u.Used() > 0, false
}

// GeminiWindow is transcript.GeminiWindow: a Gemini CLI model's window.
func GeminiWindow(model string) int64 {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return 256_000
	}
	return 1_048_576
}

// GeminiCompressAt is transcript.GeminiCompressAt.
const GeminiCompressAt = 0.5
