package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// countingReaderAt counts the bytes TailUsage asks for.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// docs/HOSTS.md, "Transcripts": the gauge reads a small tail, whatever the
// file's size.
func TestTailUsageReadsOnlyTheTail(t *testing.T) {
	var buf bytes.Buffer
	want, known := genClaude(&buf, 5<<20, 40, 1)
	data := buf.Bytes()
	s, err := Read(bytes.NewReader(data), ClaudeCode, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !known || s.Usage != want || !s.UsageKnown || s.BadLines != 0 || s.Compactions == 0 {
		t.Fatalf("Read = %+v (known %v, %d bad, %d compactions); the generator says %+v", s.Usage, s.UsageKnown, s.BadLines, s.Compactions, want)
	}
	const maxBack = 256 << 10
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	u, ok, err := tailUsage(cr, int64(len(data)), ClaudeCode, maxBack)
	if err != nil || !ok || u != want {
		t.Errorf("tailUsage = %+v, %v, %v; want %+v", u, ok, err, want)
	}
	if cr.n.Load() > maxBack {
		t.Errorf("read %d bytes of %d; want at most %d", cr.n.Load(), len(data), maxBack)
	}
	t.Logf("read %d bytes of %d", cr.n.Load(), len(data))

	p := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if u, ok, err := TailUsage(p, ClaudeCode, maxBack); err != nil || !ok || u != want {
		t.Errorf("TailUsage = %+v, %v, %v; want %+v", u, ok, err, want)
	}
}

func TestTailUsageLimits(t *testing.T) {
	usage := ccAsst("m1", ccUsage(1, 2, 3, 4), ccText("x"))
	wantU := Usage{InputTokens: 1, CacheCreationTokens: 2, CacheReadTokens: 3, OutputTokens: 4, MessageID: "m1"}
	huge := ccUser([]obj{ccResult("t1", strings.Repeat("z", 1<<20), false)})
	bigUsage := ccAsst("m2", ccUsage(5, 6, 7, 8), ccText(strings.Repeat("long text ", 30000)))
	tests := []struct {
		name    string
		content string
		maxBack int64
		want    Usage
		ok      bool
	}{
		{"HOSTS.md Transcripts: stops after maxBack bytes", ccUser("hi") + "\n" + usage + "\n" + huge + "\n", 512 << 10, Usage{}, false},
		{"HOSTS.md Transcripts: reads past a long line when allowed", ccUser("hi") + "\n" + usage + "\n" + huge + "\n", 0, wantU, true},
		{"HOSTS.md Transcripts: stops at a compaction", usage + "\n" + ccBoundary() + "\n" + ccSummaryLine() + "\n", 0, Usage{}, false},
		{"a usage line longer than a chunk", ccUser("hi") + "\n" + bigUsage + "\n" + ccUser("next"), 0, Usage{InputTokens: 5, CacheCreationTokens: 6, CacheReadTokens: 7, OutputTokens: 8, MessageID: "m2"}, true},
		{"the only line, without a newline", usage, 0, wantU, true},
		{"CRLF line ends", usage + "\r\n" + ccUser("x") + "\r\n", 0, wantU, true},
		{"an empty file", "", 0, Usage{}, false},
		{"a half-written last line", usage + "\n" + `{"type":"assistant","message":{"id":"m9","usage":{"input_tokens":99`, 0, wantU, true},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		p := filepath.Join(dir, strings.Repeat("t", i+1))
		os.WriteFile(p, []byte(tc.content), 0o644)
		u, ok, err := TailUsage(p, ClaudeCode, tc.maxBack)
		if err != nil || ok != tc.ok || u != tc.want {
			t.Errorf("%s: TailUsage = %+v, %v, %v; want %+v, %v", tc.name, u, ok, err, tc.want, tc.ok)
		}
	}
	if _, _, err := TailUsage(filepath.Join(dir, "missing"), ClaudeCode, 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TailUsage(missing) = %v", err)
	}
}

// docs/HOSTS.md, "Gemini CLI": the window is the message's model's, as
// Gemini CLI's tokenLimit has it, read alike by Read and TailUsage.
func TestGeminiWindowFromModel(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  int64
	}{
		{"gemini-2.5-flash", 1_048_576},
		{"gemini-3-pro-preview", 1_048_576},
		{"gemma-4-31b-it", 256_000},
		{"gemma-4-26b-a4b-it", 256_000},
		{"", 1_048_576}, // no model: the host's default limit
	} {
		line := `{"id":"g1","timestamp":"2026-11-26T00:00:00Z","type":"gemini","content":"ok","tokens":{"input":600000,"output":10,"cached":0,"thoughts":0,"tool":0,"total":600010}`
		if tc.model != "" {
			line += `,"model":"` + tc.model + `"`
		}
		data := `{"sessionId":"s","projectHash":"h","startTime":"2026-11-26T00:00:00Z","lastUpdated":"2026-11-26T00:00:00Z","kind":"main"}` + "\n" + line + "}\n"
		s, err := Read(strings.NewReader(data), Gemini, ReadOptions{})
		if err != nil || !s.UsageKnown || s.Usage.ContextWindow != tc.want || s.Usage.Used() != 600000 {
			t.Errorf("%q: Read usage %+v (known %v, err %v), want window %d", tc.model, s.Usage, s.UsageKnown, err, tc.want)
		}
		u, ok, err := tailUsage(strings.NewReader(data), int64(len(data)), Gemini, 0)
		if err != nil || !ok || u != s.Usage {
			t.Errorf("%q: TailUsage %+v (ok %v, err %v), Read %+v", tc.model, u, ok, err, s.Usage)
		}
	}
}

// docs/HOSTS.md, "Transcripts": a Gemini prompt is read without what hooks
// added to it (<hook_context>…</hook_context> before and after it), and a
// prompt that was only that is no prompt.
func TestGeminiPromptWithoutHookContext(t *testing.T) {
	meta := `{"sessionId":"s","projectHash":"h","startTime":"2026-11-26T00:00:00Z","lastUpdated":"2026-11-26T00:00:00Z","kind":"main"}` + "\n"
	user := func(id, text string) string {
		return `{"id":"` + id + `","timestamp":"2026-11-26T00:00:00Z","type":"user","content":[{"text":` + strconv.Quote(text) + `}]}` + "\n"
	}
	data := meta +
		user("u1", "<hook_context># Resumed: session s\n\nCheckpoint cp_002</hook_context>\n\nContinue the port.\n\n<hook_context># Post-Compaction Recovery\nx</hook_context>") +
		user("u2", "<hook_context># ctxgit keeps this workspace's working state</hook_context>")
	s, err := Read(strings.NewReader(data), Gemini, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Turns != 1 || s.Thread.LatestPrompt != "Continue the port." {
		t.Fatalf("turns %d, latest prompt %q; want 1, %q", s.Turns, s.Thread.LatestPrompt, "Continue the port.")
	}
	for _, tc := range [][2]string{
		{"a <hook_context>x</hook_context> b", "a  b"},
		{"<hook_context>x</hook_context>", ""},
		{"a <hook_context>cut", "a "},
		{"plain", "plain"},
	} {
		if got := withoutHookContext(tc[0]); got != tc[1] {
			t.Errorf("withoutHookContext(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}

// TestTailUsageAgreesAtEveryCut: the tail's reading is Read's on every
// transcript of the four formats, cut after every line and in the middle
// of each (a host still writing it). The tool-call hook reads with the same
// search (internal/tail), so this is the agreement of the two binaries too.
func TestTailUsageAgreesAtEveryCut(t *testing.T) {
	files := map[Format][]string{
		ClaudeCode: {"claude-code-commands.jsonl", "claude-code-queued.jsonl", "claude-code-small.jsonl"},
		Codex:      {"codex-agents-md.jsonl", "codex-ide.jsonl", "codex-rollout.jsonl"},
		Gemini:     {"gemini-session.jsonl", "gemini-session.json"},
		OpenClaw:   {"openclaw-session.jsonl"},
	}
	checked := 0
	for f, names := range files {
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			cuts := []int{len(data)}
			for i, c := range data {
				if c == '\n' {
					cuts = append(cuts, i+1, max(0, i-7))
				}
			}
			for _, n := range cuts {
				s, err := Read(bytes.NewReader(data[:n]), f, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				u, ok, err := tailUsage(bytes.NewReader(data[:n]), int64(n), f, 0)
				if err != nil || ok != s.UsageKnown || u != s.Usage {
					t.Fatalf("%s cut at %d: tail read %+v %v (%v), Read %+v %v", name, n, u, ok, err, s.Usage, s.UsageKnown)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d cuts compared", checked)
	}
}
