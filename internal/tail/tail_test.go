package tail

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestUsageKeys reads each host's usage object through its key table: the
// hosts that count cache reads inside input have them moved out (and
// clamped to input), and a counter a host does not write is never read
// from a member with an empty key.
func TestUsageKeys(t *testing.T) {
	for _, c := range []struct {
		name string
		keys *Keys
		in   string
		want Usage
	}{
		{"Claude Code", &ClaudeKeys,
			`{"input_tokens":2,"cache_creation_input_tokens":1000,"cache_read_input_tokens":9000,"output_tokens":20,"service_tier":"standard"}`,
			Usage{InputTokens: 2, CacheCreationTokens: 1000, CacheReadTokens: 9000, OutputTokens: 20}},
		{"Codex", &CodexKeys,
			`{"input_tokens":9000,"cached_input_tokens":4000,"output_tokens":100,"reasoning_output_tokens":7,"total_tokens":9100,"":55}`,
			Usage{InputTokens: 5000, CacheReadTokens: 4000, OutputTokens: 100}},
		{"Codex, more cached than input", &CodexKeys,
			`{"input_tokens":10,"cached_input_tokens":40}`,
			Usage{InputTokens: 0, CacheReadTokens: 10}},
		{"Gemini CLI", &GeminiKeys,
			`{"input":1200,"output":30,"cached":200,"thoughts":5,"tool":0,"total":1235}`,
			Usage{InputTokens: 1000, CacheReadTokens: 200, OutputTokens: 30}},
		{"OpenClaw, a quoted counter", &OpenClawKeys,
			`{"input":"10","output":5,"cacheRead":900,"cacheWrite":10,"":3}`,
			Usage{InputTokens: 10, CacheReadTokens: 900, CacheCreationTokens: 10, OutputTokens: 5}},
		{"not an object", &ClaudeKeys, `[1,2]`, Usage{}},
	} {
		if got := c.keys.Read([]byte(c.in)); got != c.want {
			t.Errorf("%s: read = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// claudeAsst is a Claude Code assistant line of message id with content.
func claudeAsst(id string, input int64, content string) string {
	return `{"type":"assistant","message":{"id":"` + id + `","role":"assistant","content":[` + content +
		`],"usage":{"input_tokens":` + strconv.FormatInt(input, 10) + `,"output_tokens":3}}}` + "\n"
}

func toolUse(id string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"Read","input":{}}`
}

// TestHoldsCall: a search asked for a tool call says whether the tail
// holds it in a line no older than the usage's message: Claude Code writes
// a message as one line per content block, and the call's block may be
// older than the message's newest line (parallel calls), or its result may
// be written already.
func TestHoldsCall(t *testing.T) {
	user := `{"type":"user","message":{"role":"user","content":"go"}}` + "\n"
	result := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}}` + "\n"
	}
	for _, tc := range []struct {
		name, data, call string
		used             int64
		known, holds     bool
	}{
		{"the call's message is the newest", user + claudeAsst("m1", 100, toolUse("toolu_1")), "toolu_1", 100, true, true},
		{"not written yet: the usage is the turn before", claudeAsst("m0", 50, `{"type":"text","text":"hi"}`) + user, "toolu_1", 50, true, false},
		{"nothing written yet", user, "toolu_1", 0, false, false},
		{"an older block of the same message", user + claudeAsst("m1", 100, toolUse("toolu_1")) + claudeAsst("m1", 100, toolUse("toolu_2")), "toolu_1", 100, true, true},
		{"the call's result is written already", user + claudeAsst("m1", 100, toolUse("toolu_1")) + result("toolu_1") + claudeAsst("m1", 100, toolUse("toolu_2")), "toolu_1", 100, true, true},
		{"an older message's call is not this turn's", claudeAsst("m0", 50, toolUse("toolu_1")) + result("toolu_1") + claudeAsst("m1", 100, toolUse("toolu_2")), "toolu_9", 100, true, false},
		{"a name inside a longer id is not the call", user + claudeAsst("m1", 100, toolUse("toolu_12")), "toolu_1", 100, true, false},
		{"no call asked", user + claudeAsst("m1", 100, toolUse("toolu_1")), "", 100, true, false},
	} {
		r, err := Read(strings.NewReader(tc.data), int64(len(tc.data)), "claude-code", Options{Call: tc.call})
		if err != nil || r.Known != tc.known || r.Usage.Used() != tc.used || r.HoldsCall != tc.holds {
			t.Errorf("%s: %+v, %v; want used %d, known %v, holds %v", tc.name, r, err, tc.used, tc.known, tc.holds)
		}
	}
}

// TestFollowStopsAtTheMessage: looking for a call in the usage's message
// reads no further back than that message's lines.
func TestFollowStopsAtTheMessage(t *testing.T) {
	old := claudeAsst("m0", 50, toolUse("toolu_1"))
	data := old + strings.Repeat(`{"type":"progress","data":"x"}`+"\n", 10) + claudeAsst("m1", 100, toolUse("toolu_2"))
	r, err := Read(strings.NewReader(data), int64(len(data)), "claude-code", Options{Call: "toolu_1"})
	if err != nil || r.HoldsCall || r.Usage.MessageID != "m1" {
		t.Fatalf("%+v, %v: the search went past the usage's message", r, err)
	}
}

// TestHoldsMark: a mark (Copilot CLI's hook.start line, by the payload's
// timestamp) answers as a call does: the usage record before it is the
// turn's; without it, the record is behind.
func TestHoldsMark(t *testing.T) {
	usage := `{"type":"session.usage_record","data":{"usage":{"inputTokens":44800,"interactionType":"conversation-agent","maxPromptTokens":64000}},"id":"e4"}` + "\n"
	start := `{"type":"hook.start","data":{"hookType":"postToolUse","input":{"sessionId":"s","timestamp":1795925948312,"cwd":"/w"}},"id":"e6"}` + "\n"
	for _, tc := range []struct {
		name, data string
		holds      bool
	}{
		{"the hook's start written", usage + start, true},
		{"not written yet", usage, false},
		{"another hook's start", usage + strings.Replace(start, "1795925948312", "1795925948071", 1), false},
	} {
		r, err := Read(strings.NewReader(tc.data), int64(len(tc.data)), "copilot", Options{Mark: `"timestamp":1795925948312`})
		if err != nil || !r.Known || r.Usage.Used() != 44800 || r.Usage.ContextWindow != 64000 || r.HoldsCall != tc.holds {
			t.Errorf("%s: %+v, %v; want 44,800 of 64,000, holds %v", tc.name, r, err, tc.holds)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := Read(strings.NewReader("{}\n"), 3, "vim", Options{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("err = %v, want ErrFormat", err)
	}
	doc := "{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}\n"
	if _, err := Read(strings.NewReader(doc), int64(len(doc)), "gemini", Options{}); !errors.Is(err, ErrLegacy) {
		t.Fatalf("err = %v, want ErrLegacy", err)
	}
}
