package realhost_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// A fake of the OpenAI Chat Completions API as Qwen Code, GitHub Copilot
// CLI (BYOK, provider type openai) and opencode (@ai-sdk/openai-compatible)
// call it: POST {base}/chat/completions, answered as one JSON completion,
// or with "stream": true as server-sent chunks ending in a usage chunk and
// "data: [DONE]". Each answer is one tool call or one text, with the
// prompt tokens the script says: the hosts read their context usage from
// the answer's usage.prompt_tokens.

// chatTurn is one scripted answer.
type chatTurn struct {
	Tool   string         // a function call when set
	Args   map[string]any // its arguments
	Text   string         // else an assistant message
	Prompt int            // usage.prompt_tokens the answer reports
}

var chatSeq atomic.Int64

// writeChatCompletion answers one request with turn, streamed when the
// request asked for it.
func writeChatCompletion(w http.ResponseWriter, body []byte, turn chatTurn) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	n := chatSeq.Add(1)
	id := fmt.Sprintf("chatcmpl-%d", n)
	usage := map[string]any{"prompt_tokens": turn.Prompt, "completion_tokens": 10, "total_tokens": turn.Prompt + 10}
	var delta, message map[string]any
	finish := "stop"
	if turn.Tool != "" {
		args, _ := json.Marshal(turn.Args)
		call := map[string]any{"id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": turn.Tool, "arguments": string(args)}}
		streamCall := map[string]any{"index": 0}
		for k, v := range call {
			streamCall[k] = v
		}
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{streamCall}}
		message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}
		finish = "tool_calls"
	} else {
		delta = map[string]any{"role": "assistant", "content": turn.Text}
		message = map[string]any{"role": "assistant", "content": turn.Text}
	}
	created := time.Now().Unix()
	if !req.Stream {
		data, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	chunk := func(choices []any, extra map[string]any) {
		v := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": choices}
		for k, x := range extra {
			v[k] = x
		}
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil)
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil)
	chunk([]any{}, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// chatScript answers a host's chat requests: kind names each request
// ("main" requests take the next scripted turn; "summary" requests, a
// host's compaction, get the summary; any other kind, a host's side
// request, gets "ok"), and it records the kinds by request index.
type chatScript struct {
	turns   []chatTurn
	next    int
	kind    func(r Request) string
	summary chatTurn
	kinds   map[int]string
	// after is the turn answered once the script runs out.
	after chatTurn
}

func newChatScript(kind func(Request) string, summary chatTurn, turns ...chatTurn) *chatScript {
	return &chatScript{turns: turns, kind: kind, summary: summary, kinds: map[int]string{},
		after: chatTurn{Text: "ok", Prompt: 3000}}
}

// push adds turns to the script; the fake's lock orders it with respond.
func (s *chatScript) push(turns ...chatTurn) { s.turns = append(s.turns, turns...) }

func (s *chatScript) respond(n int, r Request, w http.ResponseWriter) {
	if r.Method != http.MethodPost || !strings.HasSuffix(strings.SplitN(r.Path, "?", 2)[0], "/chat/completions") {
		if strings.HasSuffix(r.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","object":"model"}]}`)
			return
		}
		http.NotFound(w, nil)
		return
	}
	k := s.kind(r)
	s.kinds[n] = k
	switch k {
	case "main":
		turn := s.after
		if s.next < len(s.turns) {
			turn = s.turns[s.next]
		}
		s.next++
		writeChatCompletion(w, r.Body, turn)
	case "summary":
		writeChatCompletion(w, r.Body, s.summary)
	default:
		writeChatCompletion(w, r.Body, chatTurn{Text: "ok", Prompt: 100})
	}
}

// chatMessages is a request's messages, each with its text joined
// (a string content, or the text of its parts).
func chatMessages(body []byte) []struct{ Role, Text string } {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	out := make([]struct{ Role, Text string }, 0, len(req.Messages))
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(m.Content, &parts)
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(p.Text)
				b.WriteByte('\n')
			}
			s = b.String()
		}
		out = append(out, struct{ Role, Text string }{m.Role, s})
	}
	return out
}
