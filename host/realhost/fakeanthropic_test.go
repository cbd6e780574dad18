package realhost_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// A scripted fake of the Anthropic Messages API (POST /v1/messages, streamed
// as server-sent events: message_start, content_block_start/delta/stop,
// message_delta with the usage, message_stop), as Claude Code calls it
// through ANTHROPIC_BASE_URL. It answers three kinds of request:
//
//   - the compaction's summary request (its prompt asks to "create a
//     detailed summary of the conversation"): a fixed summary;
//   - the main loop's requests: a tool call (Read of README.md) when the
//     newest user text holds claudeToolWord and no tool result follows it,
//     else a short text; both report claudeFake.used as the context in use
//     (claudePostCompact once a compaction was answered);
//   - anything else (titles, topic checks, count_tokens): a short text, or a
//     token count.

// claudeToolWord in a prompt makes the fake answer with one tool call.
const claudeToolWord = "READ-THE-README"

// claudeSummaryAsk is in the prompt of Claude Code's compaction request.
const claudeSummaryAsk = "create a detailed summary of"

// claudeSummary is the fake's answer to a compaction.
const claudeSummary = "<summary>1. Primary Request and Intent: read the README of the demo repository.</summary>"

// claudePostCompact is the context the fake reports after a compaction.
const claudePostCompact = 20_000

// claudeFake is the fake's script: the usage it reports, and what it saw.
type claudeFake struct {
	api  *FakeAPI
	dir  string // the workspace, for the tool call's absolute path
	mu   sync.Mutex
	used int64 // tokens the next main answer reports in use
	n    int   // messages answered, for ids
}

// claudeRequest is the part of a Messages request the fake reads.
type claudeRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Tools    []struct{}      `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// claudeBlock is one content block of a message.
type claudeBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

func newClaudeFake(t *testing.T, dir string) *claudeFake {
	f := &claudeFake{dir: dir, used: 1000}
	f.api = NewFakeAPI(t, f.respond)
	return f
}

// setUsed sets the context the next main answers report.
func (f *claudeFake) setUsed(tokens int64) {
	f.mu.Lock()
	f.used = tokens
	f.mu.Unlock()
}

// blocks is a message's content as blocks (a bare string is one text block).
func blocks(raw json.RawMessage) []claudeBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []claudeBlock{{Type: "text", Text: s}}
	}
	var bs []claudeBlock
	json.Unmarshal(raw, &bs)
	return bs
}

// parseClaude reads a Messages request, or reports that it is none.
func parseClaude(r Request) (claudeRequest, bool) {
	var req claudeRequest
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Path, "/v1/messages") ||
		strings.HasPrefix(r.Path, "/v1/messages/") || json.Unmarshal(r.Body, &req) != nil {
		return req, false
	}
	return req, true
}

// kind says what a request is: "main", "summary", "other" or "count".
func claudeKind(r Request) string {
	if strings.HasPrefix(r.Path, "/v1/messages/count_tokens") {
		return "count"
	}
	req, ok := parseClaude(r)
	switch {
	case !ok:
		return "other"
	case strings.Contains(lastUserText(req), claudeSummaryAsk):
		return "summary"
	case len(req.Tools) > 0:
		return "main"
	}
	return "other"
}

// lastUserText is the newest user message's own text: its last text block,
// after the host's attachments (system reminders, hook context), which may
// quote earlier prompts (a recovery block quotes the latest instruction).
func lastUserText(req claudeRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		text := ""
		for _, bl := range blocks(m.Content) {
			if bl.Type == "text" {
				text = bl.Text
			}
		}
		return text
	}
	return ""
}

// endsWithToolResult reports whether the newest message carries a tool result.
func endsWithToolResult(req claudeRequest) bool {
	if len(req.Messages) == 0 {
		return false
	}
	for _, bl := range blocks(req.Messages[len(req.Messages)-1].Content) {
		if bl.Type == "tool_result" {
			return true
		}
	}
	return false
}

func (f *claudeFake) respond(n int, r Request, w http.ResponseWriter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	switch claudeKind(r) {
	case "count":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 1000}`)
		return
	case "summary":
		f.answer(w, r, claudeText(claudeSummary), 2000)
		// After a compaction the context is small again.
		f.used = claudePostCompact
		return
	case "other":
		if _, ok := parseClaude(r); !ok {
			http.NotFound(w, nil)
			return
		}
		f.answer(w, r, claudeText("ok"), 500)
		return
	}
	req, _ := parseClaude(r)
	if strings.Contains(lastUserText(req), claudeToolWord) && !endsWithToolResult(req) {
		input, _ := json.Marshal(map[string]string{"file_path": f.dir + "/README.md"})
		f.answer(w, r, claudeToolUse(fmt.Sprintf("toolu_%03d", f.n), "Read", string(input)), f.used)
		return
	}
	f.answer(w, r, claudeText("Done."), f.used)
}

// claudeContent is one content block of an answer, as its SSE events.
type claudeContent struct {
	start map[string]any
	delta map[string]any
	stop  string // the stop_reason it implies
}

func claudeText(text string) claudeContent {
	return claudeContent{
		start: map[string]any{"type": "text", "text": ""},
		delta: map[string]any{"type": "text_delta", "text": text},
		stop:  "end_turn",
	}
}

func claudeToolUse(id, name, inputJSON string) claudeContent {
	return claudeContent{
		start: map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}},
		delta: map[string]any{"type": "input_json_delta", "partial_json": inputJSON},
		stop:  "tool_use",
	}
}

// answer writes one assistant message whose usage says used tokens are in
// the context (input) plus a few of output: streamed when asked, else whole.
func (f *claudeFake) answer(w http.ResponseWriter, r Request, c claudeContent, used int64) {
	req, _ := parseClaude(r)
	id := fmt.Sprintf("msg_fake_%04d", f.n)
	const out = 10
	in := max(used-out, 1)
	if !req.Stream {
		block := map[string]any{}
		for k, v := range c.start {
			block[k] = v
		}
		if c.stop == "tool_use" {
			var input any
			json.Unmarshal([]byte(c.delta["partial_json"].(string)), &input)
			block["input"] = input
		} else {
			block["text"] = c.delta["text"]
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{block}, "stop_reason": c.stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": c.start})
	event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": c.delta})
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": c.stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out}})
	event("message_stop", map[string]any{"type": "message_stop"})
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}
