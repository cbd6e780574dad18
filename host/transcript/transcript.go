// Package transcript reads the session transcripts that agent hosts write
// (Claude Code, Codex, OpenClaw; docs/HOSTS.md, "Transcripts") to learn what
// ctxgit cannot ask the host directly: how full the context is, whether and
// how often it was compacted, which files and tools the session touched, which
// tool calls failed, and the gist of the conversation. It can also repair a
// transcript the way OpenClaw does.
//
// Transcripts are JSON Lines files that grow to hundreds of megabytes and
// are read from hooks that run on every tool call, so reading streams in
// constant memory, tolerates any broken line (counted, never fatal), and
// the gauge's question (the newest usage) is answered by reading the file
// backwards from its end.
package transcript

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// Format names a host's transcript format.
type Format string

// The transcript formats ctxgit reads.
const (
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	OpenClaw   Format = "openclaw"
	Gemini     Format = "gemini"
	QwenCode   Format = "qwen-code"
	Copilot    Format = "copilot"
	OpenCode   Format = "opencode"
)

// Formats lists the formats ctxgit reads, for messages and flags.
var Formats = []Format{ClaudeCode, Codex, OpenClaw, Gemini, QwenCode, Copilot, OpenCode}

func (f Format) known() bool { return slices.Contains(Formats, f) }

// Caps on what a Summary keeps, so memory stays constant however long the
// session ran (SPEC §8.5).
const (
	maxFiles      = 100
	maxTools      = 100
	maxFailures   = 20
	maxBadNumbers = 20
	// maxOpenCalls bounds the table of tool calls still waiting for their
	// result; a transcript with more open calls than this is broken, and
	// forgetting the oldest only loses failure tool names.
	maxOpenCalls = 4096
	// defaultExchanges is the default number of key exchanges (SPEC §8.3).
	defaultExchanges = 8
)

// maxLineBytes is the longest line read; longer ones are counted as bad and
// skipped without being held in memory. Screenshots travel base64-encoded
// inside tool results, so lines of several megabytes are normal. A
// variable so tests can lower it.
var maxLineBytes = 32 << 20

// Usage is one assistant turn's token usage as the transcript records it
// (internal/tail, the one reader of a transcript's tail, defines it).
type Usage = tail.Usage

// ToolFailure is a tool call whose result was an error.
type ToolFailure struct {
	Tool    string `json:"tool"`
	Summary string `json:"summary"` // at most 120 characters, one line
	// Line is the transcript line of the failed result; 0 in a transcript
	// that is one JSON document (Gemini CLI's .json), where At places it.
	Line int `json:"line"`
	// At is a JSON pointer to the failed call in a one-document transcript
	// ("/messages/7/toolCalls/0"); else "".
	At string `json:"at,omitempty"`
	// Target is the call's command (its first line) or path, at most 200
	// characters; "" when the call is unknown or names neither.
	Target string `json:"target,omitempty"`
	// ExitCode is the command's exit status when the result says.
	ExitCode *int `json:"exit_code,omitempty"`
	// Error is the result's first meaningful line (failureLine), at most
	// 200 characters; "no output" when the result was empty.
	Error string `json:"error,omitempty"`
	// Time is when the result was written, RFC 3339 UTC, when the
	// transcript says; else "".
	Time string `json:"time,omitempty"`
}

// Summary is what Read learns from a transcript.
type Summary struct {
	Format         Format `json:"format"`
	Lines          int    `json:"lines"`            // lines read, blank ones included
	BadLines       int    `json:"bad_lines"`        // lines that are not one JSON object in UTF-8
	BadLineNumbers []int  `json:"bad_line_numbers"` // the first 20 of them
	// Turns counts prompts: messages the user wrote (docs/HOSTS.md,
	// "Transcripts"), on the live branch of the conversation; a prompt queued
	// while the agent was busy counts once, when it was queued.
	Turns int `json:"turns"`
	// HostMessages counts user-role messages the host wrote (task
	// notifications, command echoes and output, reminders, compaction
	// summaries, meta lines): not prompts.
	HostMessages int `json:"host_messages"`
	// AbandonedPrompts counts prompts left behind on a branch by a rewind
	// or an edited prompt; they are not in Turns or the thread.
	AbandonedPrompts int `json:"abandoned_prompts"`
	Compactions      int `json:"compactions"`
	// Usage is the last assistant usage after the last compaction; when
	// there is none, UsageKnown is false (usage from before a compaction
	// says nothing about the context now).
	Usage      Usage `json:"usage"`
	UsageKnown bool  `json:"usage_known"`
	// FilesRead and FilesModified are relative to ReadOptions.Root when
	// under it, deduplicated, in first-seen order, at most 100 each.
	FilesRead     []string `json:"files_read"`
	FilesModified []string `json:"files_modified"`
	// FilesModifiedAt holds, for each of FilesModified, when its newest
	// successful write's result was written (RFC 3339 UTC, to the
	// nanosecond); "" when the transcript does not say, or the newest
	// write has no result yet. The block lists only the edits since the
	// previous checkpoint (SPEC §10.1).
	FilesModifiedAt []string      `json:"files_modified_at"`
	ToolsUsed       []string      `json:"tools_used"` // deduplicated, first-use order, at most 100
	ToolCalls       int           `json:"tool_calls"`
	ToolFailures    []ToolFailure `json:"tool_failures"` // the newest 20, oldest first
	// ToolRejections counts calls the user declined at the host's
	// permission prompt: not failures.
	ToolRejections int    `json:"tool_rejections"`
	LastToolCall   string `json:"last_tool_call"` // the name of the last tool call
	// Interrupted is true when the last tool call has no result, or the
	// user interrupted and has not prompted since.
	Interrupted bool        `json:"interrupted"`
	Thread      spec.Thread `json:"thread"`
}

// ReadOptions tune Read.
type ReadOptions struct {
	// Root is the workspace root: file paths under it are made relative to
	// it. "" keeps paths as the transcript has them.
	Root string
	// MaxExchanges caps Thread.KeyExchanges (default 8).
	MaxExchanges int
}

// Detect sniffs the first non-empty lines of a transcript for its format.
// A file with no recognisable line is an error (it matches spec.ErrInvalid).
func Detect(path string) (Format, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	lr := newLineReader(fh, 1<<20)
	for seen := 0; seen < 64; {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", &spec.FileError{Path: path, Line: lr.n, Err: err}
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || tooLong {
			continue
		}
		seen++
		if f := detectLine(line); f != "" {
			return f, nil
		}
	}
	if f, err := detectFileDocument(path); err != nil || f != "" {
		return f, err
	}
	return "", spec.InvalidAt(path, 0, NotATranscript)
}

// NotATranscript is the error of a file no reader recognises.
const NotATranscript = "not a transcript ctxgit knows (Claude Code, Codex, OpenClaw, Gemini CLI, Qwen Code, Copilot CLI or opencode)"

// detectFileDocument tries the file as one JSON document.
func detectFileDocument(path string) (Format, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	br := bufio.NewReader(fh)
	if !tail.LegacyDocument(br) {
		return "", nil
	}
	data, err := io.ReadAll(io.LimitReader(br, maxDocumentBytes))
	if err != nil {
		return "", &spec.FileError{Path: path, Err: err}
	}
	return detectDocument(bytes.TrimSpace(data)), nil
}

// detectLine names the format one line belongs to, or "" when the line
// does not tell. Each host is recognised by keys only it writes (docs/HOSTS.md,
// "Transcripts", "Format detection"); a key several hosts share (sessionId,
// type "user") never decides alone.
func detectLine(line []byte) Format {
	if !jsonscan.ValidLine(line) {
		return ""
	}
	var typ, payload, message, role, id, content, data, info, parts []byte
	var claudeKeys, parentID, geminiKeys, sessionID, qwenKeys bool
	for key, val := range jsonscan.EachMember(line) {
		switch string(key) {
		case "type":
			typ = val
		case "payload":
			payload = val
		case "message":
			message = val
		case "role":
			role = val
		case "id":
			id = val
		case "content":
			content = val
		case "data":
			data = val
		case "info":
			info = val
		case "parts":
			parts = val
		case "parentUuid", "uuid", "isSidechain", "leafUuid", "userType":
			claudeKeys = true
		case "sessionId":
			sessionID = true
		case "parentId":
			parentID = true
		case "projectHash", "$rewindTo", "$set":
			geminiKeys = true
		case "provenance", "usageMetadata", "toolCallResult", "systemPayload":
			qwenKeys = true
		}
	}
	t := jsonscan.StrOr(typ)
	switch {
	case payload != nil && codexLineTypes[t]:
		return Codex
	case data != nil && copilotLineTypes[t]:
		return Copilot
	case info != nil && parts != nil && typ == nil:
		// ctxgit's opencode plugin's export: {info, parts} per message.
		if r := jsonscan.StrOr(jsonscan.Field(info, "role")); r == "user" || r == "assistant" {
			return OpenCode
		}
	case qwenKeys && claudeKeys:
		// Qwen Code's records carry Claude Code's uuid and parentUuid
		// besides keys of its own.
		return QwenCode
	case geminiKeys:
		return Gemini
	case t == "session" || t == "message" && message != nil && !claudeKeys || parentID && openclawEntryTypes[t]:
		return OpenClaw
	case claudeKeys || claudeLineTypes[t] && (message != nil || sessionID && t != "user" && t != "assistant"):
		return ClaudeCode
	case jsonscan.IsString(id) && content != nil && message == nil && geminiMessageTypes[t]:
		return Gemini
	case role != nil && codexItemTypes[t]:
		// An old Codex rollout: response items without the envelope.
		return Codex
	}
	return ""
}

var (
	codexLineTypes     = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}
	codexItemTypes     = map[string]bool{"message": true, "function_call": true, "function_call_output": true, "reasoning": true}
	openclawEntryTypes = map[string]bool{"message": true, "compaction": true, "branch_summary": true, "custom": true, "custom_message": true, "model_change": true, "thinking_level_change": true, "label": true}
	claudeLineTypes    = map[string]bool{"user": true, "assistant": true, "system": true, "progress": true, "summary": true, "file-history-snapshot": true, "queue-operation": true, "attachment": true}
	geminiMessageTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}
	copilotLineTypes   = map[string]bool{"session.start": true, "session.resume": true, "user.message": true, "assistant.message": true,
		"assistant.turn_start": true, "tool.execution_start": true, "tool.execution_complete": true, "session.usage_record": true,
		"hook.start": true, "hook.end": true, "system.message": true}
)

// detectDocument recognises a whole file that is one JSON document rather
// than JSON Lines: Gemini CLI's older chat layout {sessionId,
// projectHash, messages}.
func detectDocument(data []byte) Format {
	if !jsonscan.ValidLine(data) {
		return ""
	}
	if jsonscan.Field(data, "projectHash") != nil && jsonscan.Field(data, "messages") != nil {
		return Gemini
	}
	return ""
}

// maxDocumentBytes bounds a transcript read as one JSON document.
const maxDocumentBytes = 64 << 20

// Read streams a transcript: constant memory in the file's size (except
// the capped lists), tolerant of bad lines (counted, never fatal), and
// never panics. It fails only for an unknown format or an I/O error of r,
// which it reports with the line it broke.
func Read(r io.Reader, f Format, o ReadOptions) (*Summary, error) {
	s, line, err := read(r, f, o)
	if err != nil && line > 0 {
		return nil, fmt.Errorf("line %d: %w", line, err)
	}
	return s, err
}

// ReadFile is Read on the file at path; errors name the file and line.
func ReadFile(path string, f Format, o ReadOptions) (*Summary, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	s, line, err := read(fh, f, o)
	if err != nil {
		return nil, &spec.FileError{Path: path, Line: line, Err: err}
	}
	return s, nil
}

// lineHandler consumes one non-blank line and reports whether it was valid.
type lineHandler interface {
	line(n int, line []byte) bool
	finish()
}

func read(r io.Reader, f Format, o ReadOptions) (*Summary, int, error) {
	st := newState(f, o)
	h, err := newHandler(f, st)
	if err != nil {
		return nil, 0, err
	}
	if f == Gemini {
		br := bufio.NewReaderSize(r, 256<<10)
		if tail.LegacyDocument(br) {
			return readDocument(br, st, h)
		}
		r = br
	}
	lr := newLineReader(r, maxLineBytes)
	if line, err := scan(lr, st, h, nil); err != nil {
		return nil, line, err
	}
	h.finish()
	return st.summary(), 0, nil
}

// formatList names the formats for a message: "a, b or c".
func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newHandler is the reader of format f.
func newHandler(f Format, st *state) (lineHandler, error) {
	switch f {
	case ClaudeCode:
		return newClaudeReader(st), nil
	case Codex:
		return newCodexReader(st), nil
	case OpenClaw:
		return &openclawReader{st: st}, nil
	case Gemini:
		return newGeminiReader(st), nil
	case QwenCode:
		return &qwenReader{st: st}, nil
	case Copilot:
		return &copilotReader{st: st}, nil
	case OpenCode:
		return &opencodeReader{st: st}, nil
	}
	return nil, spec.Invalid("unknown transcript format %q (want %s)", f, formatList())
}

// scan reads lines to the end. before, when set, is called ahead of a
// last line that has no line ending yet (the host may be writing it),
// with the offset and line count up to it: the state there is what a
// later read can resume from.
func scan(lr *lineReader, st *state, h lineHandler, before func(off int64, lines int)) (int, error) {
	for {
		off, n := lr.off, lr.n
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return lr.n + 1, err
		}
		if before != nil && !lr.ended {
			before(off, n)
			before = nil
		}
		st.s.Lines = lr.n
		line = bytes.TrimSpace(line)
		if tooLong || len(line) > 0 && (!utf8.Valid(line) || !h.line(lr.n, line)) {
			st.bad(lr.n)
		}
	}
}

// readDocument reads a transcript that is one JSON document over many
// lines (Gemini CLI's older layout) as a single record.
func readDocument(r io.Reader, st *state, h lineHandler) (*Summary, int, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		return nil, 1, err
	}
	st.s.Lines = bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		st.s.Lines++
	}
	doc := bytes.TrimSpace(data)
	if len(doc) > maxDocumentBytes || !utf8.Valid(doc) || !h.line(1, doc) {
		st.bad(1)
	}
	h.finish()
	return st.summary(), 0, nil
}

// lineReader splits a stream into lines without holding more than one line
// (at most max bytes) in memory.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	max int
	n   int // lines returned so far
	// off counts the bytes read, and ended says whether the last line
	// returned had its line ending (the last line of a file being written
	// may not).
	off   int64
	ended bool
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10), max: max}
}

// next returns the next line without its line ending, and whether it was
// longer than max (then its content is dropped). The slice is valid until
// the next call. It returns io.EOF after the last line.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	long := false // the line spans more than one buffer
	lr.buf = lr.buf[:0]
	for {
		frag, err := lr.br.ReadSlice('\n')
		lr.off += int64(len(frag))
		lr.ended = len(frag) > 0 && frag[len(frag)-1] == '\n'
		switch {
		case err == bufio.ErrBufferFull:
			long = true
			if !tooLong {
				if len(lr.buf)+len(frag) > lr.max {
					tooLong, lr.buf = true, lr.buf[:0]
				} else {
					lr.buf = append(lr.buf, frag...)
				}
			}
			continue
		case err == nil || err == io.EOF:
			if err == io.EOF && len(frag) == 0 && !long {
				return nil, false, io.EOF
			}
			lr.n++
			if !long {
				return trimEOL(frag), false, nil
			}
			if !tooLong && len(lr.buf)+len(frag) > lr.max {
				tooLong = true
			}
			if tooLong {
				return nil, true, nil
			}
			lr.buf = append(lr.buf, frag...)
			return trimEOL(lr.buf), false, nil
		default:
			return nil, false, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// state accumulates what every format contributes to a Summary.
type state struct {
	s     *Summary
	root  string
	cwd   string // the session's working directory, for relative paths
	read  capSet
	mod   capSet
	tools capSet
	// modAt is when each file of mod was last written (editTime).
	modAt map[string]string

	open map[string]openCall // open tool calls by id
	// noID holds the writes of calls without an id: no result can be
	// matched to them, so they count at the end.
	noID []string
	// when is the current record's raw timestamp, valid while its line is
	// read (decoded only for a failure), and at a JSON pointer to the
	// current record in a one-document transcript.
	when     []byte
	at       string
	lastCall string // id of the last main-session tool call
	lastOpen bool   // … and whether it still waits for its result
	mark     bool   // an interruption not yet followed by a prompt

	failures []ToolFailure // ring of the newest maxFailures
	nfail    int

	thread *threadBuilder

	// plan is the newest host plan; taskIDs and nextTask number the steps
	// Claude Code's task tools create.
	plan     *spec.HostPlan
	taskIDs  []string
	nextTask int
}

func newState(f Format, o ReadOptions) *state {
	max := o.MaxExchanges
	if max <= 0 {
		max = defaultExchanges
	}
	root := o.Root
	if root != "" {
		root = filepath.Clean(root)
	}
	return &state{
		s:      &Summary{Format: f},
		root:   root,
		read:   capSet{max: maxFiles},
		mod:    capSet{max: maxFiles},
		tools:  capSet{max: maxTools},
		open:   map[string]openCall{},
		thread: &threadBuilder{max: max},
	}
}

func (st *state) bad(n int) {
	st.s.BadLines++
	if len(st.s.BadLineNumbers) < maxBadNumbers {
		st.s.BadLineNumbers = append(st.s.BadLineNumbers, n)
	}
}

// compaction forgets the usage seen so far: it described a context that no
// longer exists.
func (st *state) compaction() {
	st.s.Compactions++
	st.s.Usage, st.s.UsageKnown = Usage{}, false
}

// usage records u when it is usable: a turn with no tokens at all is a
// host's synthetic message (an API error, an interruption), not a reading.
func (st *state) usage(u Usage) {
	if u.Used() > 0 {
		st.s.Usage, st.s.UsageKnown = u, true
	}
}

// prompt records a user prompt (text may be empty: an image alone).
func (st *state) prompt(text string) {
	st.s.Turns++
	st.promptSeen()
	st.thread.prompt(text)
}

// promptSeen clears what a new prompt ends: an interruption, and the wait
// for the last call's result (the user moved on from it).
func (st *state) promptSeen() {
	st.mark = false
	st.lastOpen = false
}

// openCall is a tool call waiting for its result.
type openCall struct {
	name string
	// target is the command or path a failure line names.
	target string
	// search is set for a search command, whose exit 1 means no match.
	search bool
	// writes are the files the call modifies once it succeeds.
	writes []string
}

// toolRejected records that the user declined call id: its writes never
// happened.
func (st *state) toolRejected(id string) {
	delete(st.open, id)
	if id != "" && id == st.lastCall {
		st.lastOpen = false
	}
	st.s.ToolRejections++
}

// toolCall records a call; side is true for a subagent's call, which
// counts for tools and files but not for the main session's last call.
func (st *state) toolCall(id, name string, side bool) {
	st.s.ToolCalls++
	if name != "" {
		st.tools.add(name)
	}
	if id != "" {
		if len(st.open) >= maxOpenCalls {
			st.flushOpen()
		}
		st.open[id] = openCall{name: name}
	}
	if !side {
		st.s.LastToolCall = name
		st.lastCall, st.lastOpen = id, true
	}
}

// flushOpen forgets the open calls, counting their writes: a call whose
// result never came may have written (an interrupted session).
func (st *state) flushOpen() {
	for _, id := range slices.Sorted(maps.Keys(st.open)) {
		for _, p := range st.open[id].writes {
			st.edited(p, "")
		}
	}
	clear(st.open)
}

// target records the command or path call id names, for its failure line.
func (st *state) target(id, t string) {
	c, ok := st.open[id]
	if !ok {
		return
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(t), "\n"); first != "" {
		c.target = oneLine(first, maxTargetChars)
	}
	st.open[id] = c
}

// outcome is a tool result as a reader sees it.
type outcome struct {
	failed bool
	// exit is the command's exit status, when the result's structure
	// says (hasExit); else it is looked for in the text.
	exit    int
	hasExit bool
	// text returns the result's text; only called for a failure, so the
	// text of successful results is never decoded.
	text func() string
}

// Bounds of a failure's fields.
const (
	maxTargetChars = 200
	maxErrorChars  = 200
)

// toolResult records the result of call id. tool names the tool when the
// call is unknown (OpenClaw results carry it). A success commits the
// call's writes; a failure drops them, and a search command's exit 1 (no
// match) is neither a failure nor a write.
func (st *state) toolResult(id, tool string, o outcome, line int) {
	c, ok := st.open[id]
	if ok {
		tool = c.name
	}
	delete(st.open, id)
	if id != "" && id == st.lastCall {
		st.lastOpen = false
	}
	if !o.failed {
		if len(c.writes) > 0 {
			at := editTime(st.when)
			for _, p := range c.writes {
				st.edited(p, at)
			}
		}
		return
	}
	text := ""
	if o.text != nil {
		text = prefix(o.text(), 64<<10)
	}
	code, hasExit := o.exit, o.hasExit
	if !hasExit {
		code, hasExit = exitInText(text)
	}
	if c.search && hasExit && code == 1 {
		return
	}
	body := stripExitHeader(text)
	f := ToolFailure{Tool: tool, Summary: oneLine(body, gistChars), Line: line, At: st.at, Target: c.target, Error: failureLine(body), Time: lineTime(st.when)}
	if st.at != "" {
		f.Line = 0
	}
	if hasExit {
		f.ExitCode = &code
	}
	if f.Error == "" {
		f.Error = "no output"
		if hasExit {
			f.Summary = "exit " + strconv.Itoa(code) + ", no output"
		} else {
			f.Summary = "no output"
		}
	}
	if len(st.failures) < maxFailures {
		st.failures = append(st.failures, f)
	} else {
		st.failures[st.nfail%maxFailures] = f
	}
	st.nfail++
}

// file records a path call id reads, or modifies once it succeeds (a
// call without an id: at the end).
func (st *state) file(id string, modified bool, p string) {
	p = st.relative(p)
	if p == "" {
		return
	}
	if !modified {
		st.read.add(p)
		return
	}
	if c, ok := st.open[id]; ok && id != "" {
		if len(c.writes) < maxFiles {
			c.writes = append(c.writes, p)
			st.open[id] = c
		}
		return
	}
	if len(st.noID) < maxFiles {
		st.noID = append(st.noID, p)
	}
}

// relative makes p relative to the workspace root when it lies under it;
// a relative p is first taken relative to the session's directory.
func (st *state) relative(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || strings.ContainsRune(p, 0) {
		return ""
	}
	if st.root == "" {
		return p
	}
	abs := p
	if !filepath.IsAbs(abs) {
		if st.cwd == "" || !filepath.IsAbs(st.cwd) {
			return p
		}
		abs = filepath.Join(st.cwd, abs)
	}
	rel, err := filepath.Rel(st.root, filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

func (st *state) summary() *Summary {
	s := st.s
	// Calls still open may have written (an interrupted turn); calls
	// without an id have no result to wait for.
	for _, p := range st.noID {
		st.edited(p, "")
	}
	st.noID = nil
	st.flushOpen()
	s.FilesRead, s.FilesModified, s.ToolsUsed = st.read.list, st.mod.list, st.tools.list
	s.FilesModifiedAt = make([]string, len(s.FilesModified))
	for i, p := range s.FilesModified {
		s.FilesModifiedAt[i] = st.modAt[p]
	}
	if st.nfail > maxFailures {
		k := st.nfail % maxFailures
		st.failures = append(st.failures[k:], st.failures[:k]...)
	}
	s.ToolFailures = st.failures
	s.Interrupted = st.lastCall != "" && st.lastOpen || st.mark
	s.Thread = st.thread.build()
	s.Thread.HostPlan = st.plan
	return s
}

// edited records a successful write of p whose result was written at
// at ("" when unknown): a file written again takes the newer time.
func (st *state) edited(p, at string) {
	st.mod.add(p)
	if _, kept := st.mod.seen[p]; !kept {
		return
	}
	if st.modAt == nil {
		st.modAt = map[string]string{}
	}
	st.modAt[p] = at
}

// capSet is a deduplicated list in first-seen order that stops growing at max.
type capSet struct {
	max  int
	list []string
	seen map[string]struct{}
}

func (c *capSet) add(v string) {
	if len(c.list) >= c.max {
		return
	}
	if c.seen == nil {
		c.seen = map[string]struct{}{}
	}
	if _, ok := c.seen[v]; ok {
		return
	}
	c.seen[v] = struct{}{}
	c.list = append(c.list, v)
}

// interruptMarker starts the text a host writes when the user stops a turn
// (Claude Code: "[Request interrupted by user]" and "… for tool use]").
const interruptMarker = "[Request interrupted by user"

func isInterrupt(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), interruptMarker)
}
