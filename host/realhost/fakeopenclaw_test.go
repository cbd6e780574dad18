package realhost_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// openclawChat is the part of an OpenAI Chat Completions request the fake
// reads: OpenClaw's "openai-completions" provider adapter sends one per
// model call (docs.openclaw.ai gateway/config-tools/custom-providers).
type openclawChat struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// openclawSystem is a request's system prompt, where OpenClaw puts the
// bootstrap files (CONTEXT_RECOVERY.md among them).
func openclawSystem(body []byte) string {
	var req openclawChat
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				return s
			}
			return string(m.Content)
		}
	}
	return ""
}

// openclawSummarizing reports whether a request is OpenClaw's compaction
// summarizer rather than an agent turn.
func openclawSummarizing(body []byte) bool {
	return strings.Contains(openclawSystem(body), "context summarization assistant")
}

// openclawToolWord in a user message makes the fake ask for one shell
// command through OpenClaw's exec tool, once.
const openclawToolWord = "RUN-TOOL"

// openclawFake answers as a model: a summary for the summarizer, one exec
// tool call for a prompt holding openclawToolWord, else a short reply;
// every answer reports Usage prompt tokens (set it to drive the gauge).
type openclawFake struct {
	Usage atomic.Int64
}

func (f *openclawFake) respond(n int, r Request, w http.ResponseWriter) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.Path, "/chat/completions") {
		http.NotFound(w, nil)
		return
	}
	var req openclawChat
	if err := json.Unmarshal(r.Body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	toolDone := false
	asked := false
	for _, m := range req.Messages {
		toolDone = toolDone || m.Role == "tool"
		asked = asked || (m.Role == "user" && strings.Contains(string(m.Content), openclawToolWord))
	}
	delta := map[string]any{"role": "assistant", "content": "Done."}
	finish := "stop"
	switch {
	case openclawSummarizing(r.Body):
		delta["content"] = "## Original Request\nList the files.\n\n## Early Progress\n- ran ls\n\n## Context for Suffix\n- nothing pending"
	case asked && !toolDone:
		args, _ := json.Marshal(map[string]string{"command": "ls"})
		delta = map[string]any{"role": "assistant", "tool_calls": []map[string]any{{
			"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": "exec", "arguments": string(args)},
		}}}
		finish = "tool_calls"
	}
	prompt := f.Usage.Load()
	if prompt == 0 {
		prompt = 1000
	}
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": delta["content"]}
		if tc, ok := delta["tool_calls"]; ok {
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake-1",
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v map[string]any) {
		v["id"], v["object"], v["model"] = "chatcmpl-fake", "chat.completion.chunk", "fake-1"
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	chunk(map[string]any{"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": nil}}})
	chunk(map[string]any{"choices": []map[string]any{{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}})
	chunk(map[string]any{"choices": []map[string]any{}, "usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
