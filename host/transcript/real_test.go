package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realFixture is a real Claude Code session with one compaction, kept
// outside this package (shared/ may be absent in a bare checkout).
const realFixture = "../../../shared/fixtures/claude-code/real-session-with-compaction.jsonl"

// realLine is what the test decodes itself, with encoding/json, to check
// the scanner-based reader against an independent reading.
type realLine struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	IsSidechain bool   `json:"isSidechain"`
	Cwd         string `json:"cwd"`
	Message     struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input         int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			Output        int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// docs/HOSTS.md, "Transcripts": a real transcript with one compaction.
func TestRealClaudeCodeTranscript(t *testing.T) {
	if _, err := os.Stat(realFixture); err != nil {
		t.Skipf("real fixture not available (shared/ is absent): %v", err)
	}
	// The independent reading: boundary line, the last main-session
	// assistant usage after it, the message ids after it, the files the
	// tool calls name.
	recorded := fixture(t, realFixture)
	f, err := os.Open(recorded)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var (
		n, boundary int
		want        Usage
		idsAfter    = map[string]bool{}
		cwd         string
		written     = map[string]bool{}
	)
	for sc.Scan() {
		n++
		var l realLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if cwd == "" {
			cwd = l.Cwd
		}
		switch {
		case l.Type == "system" && l.Subtype == "compact_boundary":
			boundary, want = n, Usage{}
			clear(idsAfter)
		case l.Type == "assistant" && !l.IsSidechain:
			idsAfter[l.Message.ID] = true
			if u := l.Message.Usage; u != nil {
				want = Usage{InputTokens: u.Input, CacheCreationTokens: u.CacheCreation, CacheReadTokens: u.CacheRead, OutputTokens: u.Output, MessageID: l.Message.ID}
			}
			var blocks []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Input struct {
					FilePath string `json:"file_path"`
				} `json:"input"`
			}
			json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				if b.Type == "tool_use" && (b.Name == "Write" || b.Name == "Edit") {
					written[filepath.ToSlash(strings.TrimPrefix(b.Input.FilePath, cwd+string(filepath.Separator)))] = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if boundary != 754 {
		t.Fatalf("the fixture changed: compact_boundary at line %d, want 754", boundary)
	}

	if f, err := Detect(recorded); err != nil || f != ClaudeCode {
		t.Errorf("Detect = %q, %v", f, err)
	}
	s, err := ReadFile(recorded, ClaudeCode, ReadOptions{Root: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 1512 || s.BadLines != 0 || s.Compactions != 1 {
		t.Errorf("Lines, BadLines, Compactions = %d, %d, %d; want 1512, 0, 1", s.Lines, s.BadLines, s.Compactions)
	}
	if !s.UsageKnown || s.Usage != want || !idsAfter[s.Usage.MessageID] {
		t.Errorf("Usage = %+v (known %v); want %+v from a message after line 754", s.Usage, s.UsageKnown, want)
	}
	if s.Usage.Used() < 50_000 || s.Usage.Used() > 200_000 {
		t.Errorf("Used = %d: not a plausible context size", s.Usage.Used())
	}
	for _, tool := range []string{"Bash", "Read", "Edit", "Write", "Grep", "Task"} {
		if !slices.Contains(s.ToolsUsed, tool) {
			t.Errorf("ToolsUsed %q lacks %s", s.ToolsUsed, tool)
		}
	}
	if len(s.FilesRead) == 0 || len(s.FilesModified) == 0 {
		t.Errorf("FilesRead %q, FilesModified %q: want both non-empty", s.FilesRead, s.FilesModified)
	}
	for _, p := range s.FilesModified {
		if !written[p] || strings.HasPrefix(p, "/") {
			t.Errorf("FilesModified has %q: not a workspace-relative path a Write or Edit named", p)
		}
	}
	if !slices.Contains(s.FilesRead, "lib/spotter_web/live/session_live.ex") {
		t.Errorf("FilesRead %q lacks lib/spotter_web/live/session_live.ex", s.FilesRead)
	}
	if s.ToolCalls < len(s.ToolsUsed) || s.LastToolCall == "" {
		t.Errorf("ToolCalls %d, LastToolCall %q", s.ToolCalls, s.LastToolCall)
	}
	if len(s.ToolFailures) == 0 {
		t.Error("no ToolFailures; the fixture has is_error results")
	}
	for _, f := range s.ToolFailures {
		if f.Tool != "Bash" || f.Summary == "" || len([]rune(f.Summary)) > 120 || f.Line <= 0 {
			t.Errorf("implausible failure %+v", f)
		}
	}
	// Two prompts, "Work on bead …" and "continue": the compaction summary
	// and the background task's notification (queued at line 459,
	// delivered at line 1502) are the host's.
	if s.Turns != 2 || s.HostMessages != 3 {
		t.Errorf("Turns, HostMessages = %d, %d; want 2, 3", s.Turns, s.HostMessages)
	}
	ke := s.Thread.KeyExchanges
	var lastUser string
	for _, e := range ke {
		if e.Role == "user" {
			lastUser = string(e.Gist)
		}
		if strings.Contains(string(e.Gist), "task-notification") {
			t.Errorf("a host message in the thread: %+v", e)
		}
	}
	if lastUser != "continue" || !strings.HasSuffix(string(s.Thread.Summary), " ... continue") || s.Thread.LatestPrompt != "continue" {
		t.Errorf("the latest instruction is not the thread's last prompt: %+v", s.Thread)
	}
	if !strings.HasPrefix(string(s.Thread.Summary), "Work on bead spotter-dov.") || len(s.Thread.KeyExchanges) == 0 {
		t.Errorf("Thread = %+v", s.Thread)
	}
	if s.Interrupted {
		t.Error("Interrupted: every call of the fixture has its result")
	}

	u, ok, err := TailUsage(realFixture, ClaudeCode, 0)
	if err != nil || !ok || u != s.Usage {
		t.Errorf("TailUsage = %+v, %v, %v; Read said %+v", u, ok, err, s.Usage)
	}
	// A dry-run repair of a healthy transcript finds nothing to do.
	rep, err := Repair(realFixture, RepairOptions{DryRun: true})
	if err != nil || rep.Changed {
		t.Errorf("Repair(dry run) = %+v, %v; want no change", rep, err)
	}
}
