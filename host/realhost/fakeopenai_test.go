package realhost_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// A fake of the OpenAI Responses API as Codex CLI calls it: POST
// {base_url}/responses with "stream": true, answered with server-sent
// events (response.created, response.output_item.added/done,
// response.output_text.delta, response.completed carrying usage). Codex
// reads only these events' "type", "item" and "response" members
// (codex-rs/codex-api, the Responses SSE parser).

// codexUsage is the token usage a response reports; Codex's automatic
// compaction compares its total with model_auto_compact_token_limit.
type codexUsage struct {
	Input, Output int
}

// codexTurn is one scripted answer: a shell call or a final message.
type codexTurn struct {
	Command string // an exec_command tool call when set
	Text    string // else an assistant message
	Usage   codexUsage
}

var codexSeq atomic.Int64

// writeCodexSSE answers one /responses request with turn as SSE events.
func writeCodexSSE(w http.ResponseWriter, turn codexTurn) {
	id := codexSeq.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	event := func(v map[string]any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], data)
	}
	respID := fmt.Sprintf("resp_%d", id)
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	var item map[string]any
	if turn.Command != "" {
		args, _ := json.Marshal(map[string]any{"cmd": turn.Command, "login": false, "tty": false, "yield_time_ms": 10000})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", id),
			"call_id": fmt.Sprintf("call_%d", id), "name": codexShellTool, "arguments": string(args)}
		event(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	} else {
		msgID := fmt.Sprintf("msg_%d", id)
		item = map[string]any{"type": "message", "role": "assistant", "id": msgID,
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
		event(map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "role": "assistant", "id": msgID, "content": []any{}}})
		event(map[string]any{"type": "response.output_text.delta", "item_id": msgID, "output_index": 0, "content_index": 0, "delta": turn.Text})
	}
	event(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	event(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID,
		"usage": map[string]any{
			"input_tokens": turn.Usage.Input, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": turn.Usage.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": turn.Usage.Input + turn.Usage.Output,
		},
	}})
}

// codexShellTool is the function tool Codex 0.169 offers for shell
// commands ({"cmd": "..."}, run through unified exec).
const codexShellTool = "exec_command"

// isCompactRequest reports whether a request is Codex asking for a
// compaction summary: a model request whose last user input is Codex's
// summarisation prompt (codex-rs/core/templates/compact/prompt.md), or
// the remote compact endpoint.
func isCompactRequest(r Request) bool {
	if strings.HasSuffix(strings.SplitN(r.Path, "?", 2)[0], "/responses/compact") {
		return true
	}
	return strings.Contains(string(r.Body), "CONTEXT CHECKPOINT COMPACTION")
}
