package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Line builders for small, readable transcripts.

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type obj = map[string]any

func ccUsage(in, cc, cr, out int64) obj {
	return obj{"input_tokens": in, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr, "output_tokens": out}
}

func ccAsst(id string, usage obj, blocks ...obj) string {
	return js(obj{"type": "assistant", "isSidechain": false, "uuid": "u-" + id, "message": obj{"id": id, "role": "assistant", "content": blocks, "usage": usage}})
}

func ccSideAsst(id string, usage obj, blocks ...obj) string {
	return js(obj{"type": "assistant", "isSidechain": true, "message": obj{"id": id, "role": "assistant", "content": blocks, "usage": usage}})
}

func ccUser(content any) string {
	return js(obj{"type": "user", "isSidechain": false, "message": obj{"role": "user", "content": content}})
}

func ccText(s string) obj { return obj{"type": "text", "text": s} }

func ccCall(id, name string, input obj) obj {
	return obj{"type": "tool_use", "id": id, "name": name, "input": input}
}

func ccResult(id string, content any, isErr bool) obj {
	return obj{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}
}

func ccBoundary() string {
	return js(obj{"type": "system", "subtype": "compact_boundary", "compactMetadata": obj{"trigger": "auto", "preTokens": 150000}})
}

func ccSummaryLine() string {
	return js(obj{"type": "user", "isCompactSummary": true, "message": obj{"role": "user", "content": "This session is being continued from a previous conversation."}})
}

func cxTokens(in, cached, out, window int64) string {
	return js(obj{"timestamp": "t", "type": "event_msg", "payload": obj{"type": "token_count", "info": obj{
		"last_token_usage": obj{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out}, "model_context_window": window}}})
}

func cxCompacted() string {
	return js(obj{"timestamp": "t", "type": "compacted", "payload": obj{"message": "summary"}})
}

func ocAsst(id string, usage obj, blocks ...obj) string {
	return js(obj{"type": "message", "id": id, "parentId": nil, "message": obj{"role": "assistant", "content": blocks, "usage": usage}})
}

func ocCompaction() string {
	return js(obj{"type": "compaction", "id": "cmp", "parentId": nil, "summary": "s", "firstKeptEntryId": "x", "tokensBefore": 1000})
}

// readLines reads a transcript made of lines and checks that TailUsage
// agrees with Read on it.
func readLines(t *testing.T, f Format, lines ...string) *Summary {
	t.Helper()
	data := strings.Join(lines, "\n") + "\n"
	s, err := Read(strings.NewReader(data), f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	u, ok, err := TailUsage(p, f, 0)
	if err != nil || ok != s.UsageKnown || u != s.Usage {
		t.Errorf("TailUsage = %+v, %v, %v; Read said %+v, %v", u, ok, err, s.Usage, s.UsageKnown)
	}
	return s
}

// docs/cli.md#statusline, docs/HOSTS.md, "Transcripts": usage is the last
// assistant usage after the last compaction, deduplicated by message id; the
// rest is stale or not ours.
func TestUsage(t *testing.T) {
	big := ccUsage(3, 50000, 100000, 10)
	small := ccUsage(2, 1000, 9000, 20)
	tests := []struct {
		name   string
		format Format
		lines  []string
		want   Usage
		known  bool
		compac int
	}{
		{"HOSTS.md Transcripts: one message written once per block counts once", ClaudeCode, []string{
			ccUser("hi"),
			ccAsst("m1", small, obj{"type": "thinking", "thinking": "x"}),
			ccAsst("m1", small, ccText("hello")),
			ccAsst("m1", small, ccCall("t1", "Bash", obj{"command": "ls"})),
		}, Usage{InputTokens: 2, CacheCreationTokens: 1000, CacheReadTokens: 9000, OutputTokens: 20, MessageID: "m1"}, true, 0},
		{"HOSTS.md Transcripts: usage before the last boundary is ignored", ClaudeCode, []string{
			ccAsst("m1", big, ccText("a")), ccBoundary(), ccSummaryLine(), ccUser("go on"), ccAsst("m2", small, ccText("b")),
		}, Usage{InputTokens: 2, CacheCreationTokens: 1000, CacheReadTokens: 9000, OutputTokens: 20, MessageID: "m2"}, true, 1},
		{"HOSTS.md Transcripts: a compaction as the last event leaves usage unknown", ClaudeCode, []string{
			ccAsst("m1", big, ccText("a")), ccBoundary(), ccSummaryLine(),
		}, Usage{}, false, 1},
		{"HOSTS.md Transcripts: two compactions", ClaudeCode, []string{
			ccAsst("m1", big, ccText("a")), ccBoundary(), ccAsst("m2", big, ccText("a")), ccBoundary(), ccAsst("m3", small, ccText("c")),
		}, Usage{InputTokens: 2, CacheCreationTokens: 1000, CacheReadTokens: 9000, OutputTokens: 20, MessageID: "m3"}, true, 2},
		{"HOSTS.md Transcripts: a subagent's usage is not the session's", ClaudeCode, []string{
			ccAsst("m1", small, ccText("a")), ccSideAsst("s1", big, ccText("sub")),
		}, Usage{InputTokens: 2, CacheCreationTokens: 1000, CacheReadTokens: 9000, OutputTokens: 20, MessageID: "m1"}, true, 0},
		{"HOSTS.md Transcripts: a synthetic zero usage is no reading", ClaudeCode, []string{
			ccAsst("m1", small, ccText("a")), ccAsst("synthetic", ccUsage(0, 0, 0, 0), ccText("API Error")),
		}, Usage{InputTokens: 2, CacheCreationTokens: 1000, CacheReadTokens: 9000, OutputTokens: 20, MessageID: "m1"}, true, 0},
		{"HOSTS.md Transcripts: no assistant message at all", ClaudeCode, []string{ccUser("hi")}, Usage{}, false, 0},
		{"HOSTS.md Transcripts: Codex cached tokens are a part of input", Codex, []string{
			cxTokens(9000, 4000, 100, 272000),
			js(obj{"type": "event_msg", "payload": obj{"type": "token_count", "info": nil}}),
		}, Usage{InputTokens: 5000, CacheReadTokens: 4000, OutputTokens: 100, ContextWindow: 272000}, true, 0},
		{"HOSTS.md Transcripts: Codex compaction as the last event", Codex, []string{cxTokens(9000, 4000, 100, 272000), cxCompacted()}, Usage{}, false, 1},
		{"HOSTS.md Transcripts: Codex usage after a compaction", Codex, []string{cxTokens(90000, 4000, 100, 272000), cxCompacted(), cxTokens(12000, 0, 5, 400000)}, Usage{InputTokens: 12000, OutputTokens: 5, ContextWindow: 400000}, true, 1},
		{"HOSTS.md Transcripts: OpenClaw usage after a compaction", OpenClaw, []string{
			ocAsst("e1", obj{"input": 10, "output": 5, "cacheRead": 90000, "cacheWrite": 10}, ccText("a")), ocCompaction(),
			ocAsst("e2", obj{"input": 10, "output": 5, "cacheRead": 900, "cacheWrite": 10}, ccText("b")),
		}, Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 900, CacheCreationTokens: 10, MessageID: "e2"}, true, 1},
		{"HOSTS.md Transcripts: OpenClaw compaction as the last event", OpenClaw, []string{
			ocAsst("e1", obj{"input": 10, "output": 5, "cacheRead": 90000, "cacheWrite": 10}, ccText("a")), ocCompaction(),
		}, Usage{}, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := readLines(t, tc.format, tc.lines...)
			if s.Usage != tc.want || s.UsageKnown != tc.known || s.Compactions != tc.compac {
				t.Errorf("Usage = %+v, known %v, compactions %d; want %+v, %v, %d", s.Usage, s.UsageKnown, s.Compactions, tc.want, tc.known, tc.compac)
			}
		})
	}
}

func TestUsed(t *testing.T) {
	u := Usage{InputTokens: 1, CacheCreationTokens: 20, CacheReadTokens: 300, OutputTokens: 4000}
	if u.Used() != 321 {
		t.Errorf("Used = %d, want 321 (output is not context yet)", u.Used())
	}
}

// docs/HOSTS.md, "Transcripts": bad lines are counted and skipped, never fatal.
func TestBadLines(t *testing.T) {
	defer func(old int) { maxLineBytes = old }(maxLineBytes)
	maxLineBytes = 8 << 20

	good := ccAsst("m1", ccUsage(1, 2, 3, 4), ccText("ok"))
	fiveMB := ccUser([]obj{ccResult("t1", strings.Repeat("x", 5<<20), false)})
	var b bytes.Buffer
	lines := []string{
		ccUser("first prompt"),          // 1
		"not json at all",               // 2
		`{"type":"user","message":`,     // 3: cut short
		`{"type":"us` + "\x00" + `er"}`, // 4: NUL byte
		`{"type":"user","message":{"role":"user","content":"bad ` + "\xff\xfe" + ` utf8"}}`, // 5
		fiveMB, // 6: long but valid
		"{" + strings.Repeat(`"k":1,`, 1<<20) + `"k":1`, // 7: 6 MB, never closed
		strings.Repeat("y", 9<<20),                      // 8: longer than the limit
		"",                                              // 9: blank, not bad
		`[1,2,3]`,                                       // 10: JSON, but not an object
		`{"a":1} {"b":2}`,                               // 11: two values
		good,                                            // 12
		`{"type":"assistant","message":{"id":"m9","usage":{"input_tokens":5`, // 13: truncated last line, no newline
	}
	b.WriteString(strings.Join(lines, "\n"))
	s, err := Read(bytes.NewReader(b.Bytes()), ClaudeCode, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantBad := []int{2, 3, 4, 5, 7, 8, 10, 11, 13}
	if s.Lines != 13 || s.BadLines != len(wantBad) || !equalInts(s.BadLineNumbers, wantBad) {
		t.Errorf("Lines %d, BadLines %d %v; want 13, %d %v", s.Lines, s.BadLines, s.BadLineNumbers, len(wantBad), wantBad)
	}
	if s.Turns != 1 || !s.UsageKnown || s.Usage.MessageID != "m1" {
		t.Errorf("the good lines were not read: %+v", s)
	}
	// A truncated last line is what a host leaves while it writes: the
	// gauge must read past it.
	p := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(p, b.Bytes(), 0o644)
	if u, ok, err := TailUsage(p, ClaudeCode, 0); err != nil || !ok || u.MessageID != "m1" {
		t.Errorf("TailUsage = %+v, %v, %v", u, ok, err)
	}
}

func TestBadLineNumbersCapped(t *testing.T) {
	s, err := Read(strings.NewReader(strings.Repeat("junk\n", 50)), OpenClaw, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 50 || s.BadLines != 50 || len(s.BadLineNumbers) != 20 || s.BadLineNumbers[19] != 20 {
		t.Errorf("Lines %d, BadLines %d, numbers %v", s.Lines, s.BadLines, s.BadLineNumbers)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
