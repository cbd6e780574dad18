// Package tail reads a host transcript's newest usage from its end: the
// gauge's reading, asked on every tool call. It is the one reader of a
// transcript's tail: host/transcript (TailUsage, and the usage counters its
// full reader adds up) and the small tool-call hook (internal/hookpath,
// cmd/ctxgit-hook) both read with it, so the two binaries take the same
// reading. It uses the standard library and internal/jsonscan only, and
// does no package-level work (docs/PERFORMANCE.md, "The tool-call
// hook's own binary"; TestHookBinaryDeps).
//
// A host is added by giving its transcript format a probe (probeFor): the
// byte strings a line must hold to matter, and what such a line says.
package tail

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// Usage is one assistant turn's token usage as the transcript records it.
//
// InputTokens counts input not read from the prompt cache. Codex and
// Gemini CLI report cached tokens as a part of their input count; they are
// moved to CacheReadTokens here, so that Used means the same for every
// format.
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_tokens"`
	CacheReadTokens     int64 `json:"cache_read_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	// ContextWindow is the model's window when the transcript says (Codex
	// model_context_window, a Gemini CLI message's model); else 0.
	ContextWindow int64 `json:"context_window"`
	// MessageID is the assistant message the usage came from (Claude Code
	// message.id, OpenClaw entry id, Gemini CLI message id), for
	// deduplication; "" for Codex.
	MessageID string `json:"message_id"`
}

// Used is the context in use: input + cache creation + cache read
// (docs/cli.md#statusline). For Codex this is its input_tokens, of which
// cached_input_tokens is a subset (see Usage).
func (u Usage) Used() int64 { return u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens }

// Keys names a host's token counters in its usage object; "" for a
// counter the host does not write.
type Keys struct {
	Input, CacheRead, CacheWrite, Output string
	// ReadInInput is set when the host's input count includes the cache
	// reads (Codex, Gemini CLI): they are moved out of InputTokens (see
	// Usage).
	ReadInInput bool
}

// The counters of each host's usage object.
var (
	// Claude Code message.usage; input excludes cached tokens.
	ClaudeKeys = Keys{Input: "input_tokens", CacheRead: "cache_read_input_tokens",
		CacheWrite: "cache_creation_input_tokens", Output: "output_tokens"}
	// Codex token_count info.last_token_usage, token_usage_record usage.
	CodexKeys = Keys{Input: "input_tokens", CacheRead: "cached_input_tokens",
		Output: "output_tokens", ReadInInput: true}
	// Gemini CLI message tokens; input is the prompt's count, cached a
	// part of it, as Codex counts.
	GeminiKeys = Keys{Input: "input", CacheRead: "cached", Output: "output", ReadInInput: true}
	// OpenClaw assistant usage; input excludes cached tokens for every
	// provider, as Claude Code's does.
	OpenClawKeys = Keys{Input: "input", CacheRead: "cacheRead", CacheWrite: "cacheWrite", Output: "output"}
)

// Read reads the counters of a usage object; a counter that is missing
// or not a number is 0.
func (k *Keys) Read(raw []byte) Usage {
	var u Usage
	for key, val := range jsonscan.EachMember(raw) {
		switch string(key) {
		case "":
			// The name of a counter the host does not write: an empty key
			// is none of the others.
		case k.Input:
			u.InputTokens, _ = jsonscan.Num(val)
		case k.CacheRead:
			u.CacheReadTokens, _ = jsonscan.Num(val)
		case k.CacheWrite:
			u.CacheCreationTokens, _ = jsonscan.Num(val)
		case k.Output:
			u.OutputTokens, _ = jsonscan.Num(val)
		}
	}
	if k.ReadInInput {
		cached := min(max(u.CacheReadTokens, 0), max(u.InputTokens, 0))
		u.InputTokens, u.CacheReadTokens = u.InputTokens-cached, cached
	}
	return u
}

// CodexUsage reads a Codex token_count event's payload: its
// info.last_token_usage and info.model_context_window.
func CodexUsage(p []byte) (Usage, bool) {
	info := jsonscan.Field(p, "info")
	last := jsonscan.Field(info, "last_token_usage")
	if last == nil {
		return Usage{}, false
	}
	u := CodexKeys.Read(last)
	u.ContextWindow, _ = jsonscan.Num(jsonscan.Field(info, "model_context_window"))
	return u, true
}

// GeminiUsage reads a Gemini CLI message's tokens, when it has them.
func GeminiUsage(raw []byte) (Usage, bool) {
	if raw == nil || raw[0] != '{' {
		return Usage{}, false
	}
	return GeminiKeys.Read(raw), true
}

// GeminiWindow is the context window of a Gemini CLI model, as the host
// counts it (packages/core/src/core/tokenLimits.ts, tokenLimit: 256,000
// for the Gemma 4 models, 1,048,576 for every other model, the Gemini
// models included). Gemini CLI compresses its chat at a share of it
// (GeminiCompressAt).
func GeminiWindow(model string) int64 {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return 256_000
	}
	return 1_048_576
}

// GeminiCompressAt is the share of the window at which Gemini CLI
// compresses its chat by default (packages/core/src/context/
// chatCompressionService.ts, DEFAULT_COMPRESSION_TOKEN_THRESHOLD; the
// setting model.compressionThreshold changes it).
const GeminiCompressAt = 0.5

// DefaultMaxBack is how far back a search looks when Options.MaxBack <= 0.
const DefaultMaxBack = 16 << 20

// chunk is the size of the blocks a search reads, newest first.
const chunk = 64 << 10

// ErrLegacy is a Gemini CLI recording in the older one-document layout:
// no line of its tail stands alone, so the caller reads it whole
// (host/transcript does; the small hook hands the call over).
var ErrLegacy = errors.New("gemini recording is one document")

// ErrFormat is a transcript format this package has no probe for.
var ErrFormat = errors.New("no tail reader for this transcript format")

// Options tune a search.
type Options struct {
	// MaxBack bounds the bytes read from the end (DefaultMaxBack when <= 0).
	MaxBack int64
	// Call is a tool call's id (a tool hook's payload tool_use_id): the
	// search also says whether the tail holds it (Reading.HoldsCall), in
	// a line no older than the message the usage came from. "" asks
	// nothing.
	Call string
	// Mark is what a line holds verbatim once the host has written the
	// turn of the tool call at hand, for a host whose hook names no call
	// id (Copilot CLI: the hook.start line with the payload's timestamp,
	// after the turn's usage record); it answers as Call does
	// (Reading.HoldsCall). "" asks nothing.
	Mark string
}

// Reading is what a search found.
type Reading struct {
	// Usage is the newest usable usage after the last compaction; Known
	// is false when there is none within reach (usage before a compaction
	// says nothing about the context now).
	Usage Usage
	Known bool
	// HoldsCall reports whether Options.Call was found: the host has
	// written the tool call's message, so Usage is that call's turn and
	// not the one before it.
	HoldsCall bool
}

// File is Read on the transcript at path.
func File(path, format string, o Options) (Reading, error) {
	probe, ok := probeFor(format)
	if !ok {
		return Reading{}, ErrFormat
	}
	fh, err := os.Open(path)
	if err != nil {
		return Reading{}, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return Reading{}, err
	}
	return read(fh, fi.Size(), format, probe, o)
}

// Read finds the newest usage after the last compaction by reading r (of
// size bytes) backwards from the end in chunks, so that the gauge costs
// the same on a 100 MB transcript as on a small one. It stops at the first
// usable usage line (Known), at a compaction boundary (not Known: usage
// before it is stale), or after MaxBack bytes (not Known). It agrees with
// host/transcript's full reader: the usage it finds is Summary.Usage.
func Read(r io.ReaderAt, size int64, format string, o Options) (Reading, error) {
	probe, ok := probeFor(format)
	if !ok {
		return Reading{}, ErrFormat
	}
	return read(r, size, format, probe, o)
}

func read(r io.ReaderAt, size int64, format string, probe probe, o Options) (Reading, error) {
	if format == "gemini" && LegacyDocument(bufio.NewReader(io.NewSectionReader(r, 0, size))) {
		return Reading{}, ErrLegacy
	}
	maxBack := o.MaxBack
	if maxBack <= 0 {
		maxBack = DefaultMaxBack
	}
	s := &search{probe: probe}
	if o.Call != "" {
		s.call = []byte(`"` + o.Call + `"`)
	} else if o.Mark != "" {
		s.call = []byte(o.Mark)
	}
	var carry []byte // the start of a line that began before the bytes read so far
	pos := size
	for pos > 0 && size-pos < maxBack {
		// Grow the read with a long line, so that a line of L bytes costs
		// O(L) copying, not O(L²/chunk).
		n := max(int64(chunk), int64(len(carry)))
		n = min(n, pos, maxBack-(size-pos))
		pos -= n
		data := make([]byte, int(n)+len(carry))
		if _, err := r.ReadAt(data[:n], pos); err != nil && err != io.EOF {
			return Reading{}, err
		}
		copy(data[n:], carry)
		end := len(data)
		for {
			i := bytes.LastIndexByte(data[:end], '\n')
			if i < 0 {
				break
			}
			if s.visit(data[i+1 : end]) {
				return s.r, nil
			}
			end = i
		}
		if pos == 0 {
			s.visit(data[:end])
			return s.r, nil
		}
		carry = data[:end]
	}
	return s.r, nil
}

// LegacyDocument reports whether br starts with a JSON document spread
// over lines, as Gemini CLI's older layout is: its first line is an
// opening brace that is not a whole object.
func LegacyDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(64 << 10)
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	first, _, _ := bytes.Cut(head, []byte{'\n'})
	return !jsonscan.ValidLine(first)
}

// search is one backward search.
type search struct {
	probe probe
	call  []byte // the quoted tool call id, or nil
	r     Reading
	found bool
	// window: the usage found has no window, and an older line may report
	// it (Codex's token_usage_record). follow: the call is not found yet,
	// and the older lines of the usage's message (msg, quoted) may hold it.
	window, follow bool
	msg            []byte
}

// visit looks at one line, newest first; done ends the search.
func (s *search) visit(line []byte) (done bool) {
	if s.call != nil && !s.r.HoldsCall && bytes.Contains(line, s.call) {
		s.r.HoldsCall = true
	}
	if !s.found {
		u, ok, stop := s.probe.check(line)
		if !stop {
			return false
		}
		s.found, s.r.Usage, s.r.Known = true, u, ok
		// A usage line without a window takes the newest window an older
		// line reported, as the full reader does.
		s.window = ok && u.ContextWindow == 0 && s.probe.window != nil
		// A message written as several lines (Claude Code: one per content
		// block) may hold the call in an older line than the usage's.
		s.follow = s.call != nil && !s.r.HoldsCall && ok && u.MessageID != ""
		s.msg = []byte(`"` + u.MessageID + `"`)
		return !s.window && !s.follow
	}
	if s.window {
		if w := s.probe.window(bytes.TrimSpace(line)); w > 0 {
			s.r.Usage.ContextWindow = w
			s.window = false
		}
	}
	if s.follow && (s.r.HoldsCall || !bytes.Contains(line, s.msg)) {
		s.follow = false
	}
	return !s.window && !s.follow
}

// probe recognises, in one line, a usable usage or a compaction.
type probe struct {
	// marks are byte strings one of which a line must contain to matter:
	// most lines are skipped without being parsed.
	marks [2]string
	line  func(line []byte) (u Usage, usable, boundary bool)
	// window, where set, reads the context window a line reports, for a
	// usage found without one.
	window func(line []byte) int64
}

// check reports stop = true when the search ends at this line.
func (p probe) check(line []byte) (u Usage, ok, stop bool) {
	line = bytes.TrimSpace(line)
	// A \u escape can spell any key or value, so a line holding one is
	// parsed whatever its bytes say.
	if len(line) == 0 || !contains(line, p.marks[0]) && !contains(line, p.marks[1]) && !contains(line, `\u`) {
		return Usage{}, false, false
	}
	if !jsonscan.ValidLine(line) {
		return Usage{}, false, false
	}
	u, usable, boundary := p.line(line)
	switch {
	case boundary:
		return Usage{}, false, true
	case usable:
		return u, true, true
	}
	return Usage{}, false, false
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

// probeFor is the probe of a transcript format: a switch, not a map built
// at package init (the tool-call path does no package-level work).
func probeFor(format string) (probe, bool) {
	switch format {
	case "claude-code":
		return probe{marks: [2]string{`"usage"`, `compact_boundary`}, line: claudeLine}, true
	case "codex":
		return probe{marks: [2]string{`token_`, `compacted`}, line: codexLine, window: codexWindow}, true
	case "openclaw":
		return probe{marks: [2]string{`"usage"`, `compaction`}, line: openclawLine}, true
	case "gemini":
		return probe{marks: [2]string{`"tokens"`, `"$set"`}, line: geminiLine}, true
	case "qwen-code":
		return probe{marks: [2]string{`"usageMetadata"`, `chat_compression`}, line: qwenLine}, true
	case "copilot":
		return probe{marks: [2]string{`session.usage_record`, `session.compaction_complete`}, line: copilotLine}, true
	case "opencode":
		return probe{marks: [2]string{`"tokens"`, `"compaction"`}, line: opencodeLine}, true
	}
	return probe{}, false
}

// The probes read a line as host/transcript's full reader does (the same
// counters, the same sidechain rule, the same "usable" test: Used() > 0),
// so the two agree; host/transcript's tests compare them on every
// transcript they hold.

// claudeLine: a compact_boundary ends the search; a main-session assistant
// line with usage is the reading (sidechain lines are a subagent's).
func claudeLine(line []byte) (Usage, bool, bool) {
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
		u := ClaudeKeys.Read(usage)
		u.MessageID = jsonscan.StrOr(jsonscan.Field(message, "id"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}

func codexLine(line []byte) (Usage, bool, bool) {
	switch jsonscan.StrOr(jsonscan.Field(line, "type")) {
	case "compacted":
		return Usage{}, false, true
	case "token_usage_record":
		u := CodexKeys.Read(jsonscan.Field(jsonscan.Field(line, "payload"), "usage"))
		return u, u.Used() > 0, false
	case "event_msg":
		p := jsonscan.Field(line, "payload")
		if jsonscan.StrOr(jsonscan.Field(p, "type")) != "token_count" {
			return Usage{}, false, false
		}
		u, ok := CodexUsage(p)
		return u, ok && u.Used() > 0, false
	}
	return Usage{}, false, false
}

// codexWindow is the window a token_count or task_started line reports, 0
// for any other line.
func codexWindow(line []byte) int64 {
	if !contains(line, `model_context_window`) || !jsonscan.ValidLine(line) || jsonscan.StrOr(jsonscan.Field(line, "type")) != "event_msg" {
		return 0
	}
	w, _ := CodexWindow(jsonscan.Field(line, "payload"))
	return w
}

// CodexWindow is the model's window a Codex event reports: token_count's
// info.model_context_window, and task_started's model_context_window,
// which Codex (0.169) writes at the start of every turn, before the
// turn's first response: a tool call in the session's first turn has
// the window its token_count reports only after the call.
func CodexWindow(p []byte) (int64, bool) {
	switch jsonscan.StrOr(jsonscan.Field(p, "type")) {
	case "token_count":
		p = jsonscan.Field(p, "info")
	case "task_started":
	default:
		return 0, false
	}
	w, ok := jsonscan.Num(jsonscan.Field(p, "model_context_window"))
	return w, ok && w > 0
}

func openclawLine(line []byte) (Usage, bool, bool) {
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
		u := OpenClawKeys.Read(usage)
		u.MessageID = jsonscan.StrOr(jsonscan.Field(line, "id"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}

// geminiLine: a $set of the whole conversation ends the search (the usage
// before it is stale); a gemini message with tokens is the usage.
func geminiLine(line []byte) (Usage, bool, bool) {
	if set := jsonscan.Field(line, "$set"); set != nil {
		return Usage{}, false, jsonscan.Field(set, "messages") != nil
	}
	if jsonscan.StrOr(jsonscan.Field(line, "type")) != "gemini" || !jsonscan.IsString(jsonscan.Field(line, "id")) {
		return Usage{}, false, false
	}
	u, ok := GeminiUsage(jsonscan.Field(line, "tokens"))
	u.MessageID = jsonscan.StrOr(jsonscan.Field(line, "id"))
	u.ContextWindow = GeminiWindow(jsonscan.StrOr(jsonscan.Field(line, "model")))
	return u, ok && u.Used() > 0, false
}
