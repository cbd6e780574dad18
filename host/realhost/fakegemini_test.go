package realhost_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeGemini is a scripted Gemini API (generativelanguage v1beta) for Gemini
// CLI, which reaches it through GOOGLE_GEMINI_BASE_URL: streamGenerateContent
// with SSE (alt=sse) for the chat, generateContent for the host's own calls
// (the compression's summary and its check), countTokens.
//
// The test scripts it between runs: the next chat answers are so many
// run_shell_command calls (geminiCalls), then a short text; each chat
// answer reports the prompt tokens the test set (geminiSetUsage), so the
// test drives the host's usage, its compression and ctxgit's gauge. A
// compression's summary call sets the usage to what the compression
// leaves (geminiAfterCompress), as a real chat's would fall.
type fakeGemini struct {
	*FakeAPI
	mu            sync.Mutex
	usage         int64 // promptTokenCount of the next chat answers
	afterCompress int64 // the usage once the host compressed, if set
	calls         int   // tool calls left to ask for
	compressions  int   // summary calls served
}

// geminiSummary is what the fake answers the host's compression calls.
const geminiSummary = "<state_snapshot>the demo task, summarised by the fake</state_snapshot>"

func newFakeGemini(t *testing.T) *fakeGemini {
	f := &fakeGemini{usage: 1000}
	f.FakeAPI = NewFakeAPI(t, f.respond)
	return f
}

// geminiSetUsage sets the prompt tokens the next chat answers report.
func (f *fakeGemini) geminiSetUsage(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usage = n
}

// geminiAfterCompress sets the usage the chat answers report once the host
// has compressed.
func (f *fakeGemini) geminiAfterCompress(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.afterCompress = n
}

// geminiCalls makes the next n chat answers tool calls.
func (f *fakeGemini) geminiCalls(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = n
}

// geminiCompressions is how many compression summaries the host asked for.
func (f *fakeGemini) geminiCompressions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.compressions
}

// geminiChatRequests are the chat requests (streamGenerateContent), in order.
func (f *fakeGemini) geminiChatRequests() []Request {
	var out []Request
	for _, r := range f.Requests() {
		if strings.Contains(r.Path, ":streamGenerateContent") {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeGemini) respond(n int, r Request, w http.ResponseWriter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case strings.Contains(r.Path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 2000})
	case strings.Contains(r.Path, ":streamGenerateContent"):
		var parts []map[string]any
		if f.calls > 0 {
			f.calls--
			parts = []map[string]any{{"functionCall": map[string]any{"name": "run_shell_command",
				"args": map[string]any{"command": fmt.Sprintf("echo step %d", n), "description": "a step"}}}}
		} else {
			parts = []map[string]any{{"text": "Done."}}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", mustJSON(geminiResponse(parts, f.usage)))
	case strings.Contains(r.Path, ":generateContent"):
		// The host's own calls: the compression's summary and its check.
		if strings.Contains(string(r.Body), "state_snapshot") {
			f.compressions++
			if f.afterCompress > 0 {
				f.usage = f.afterCompress
			}
		}
		writeJSON(w, geminiResponse([]map[string]any{{"text": geminiSummary}}, 100))
	default:
		http.NotFound(w, nil)
	}
}

func geminiResponse(parts []map[string]any, prompt int64) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": 10, "totalTokenCount": prompt + 10},
		"modelVersion":  "gemini-2.5-flash",
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(mustJSON(v))
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}
