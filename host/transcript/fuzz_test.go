package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"
)

// countLines counts lines the way a person would: a last line without a
// newline still counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

func addSeeds(f *testing.F, files ...string) {
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// Small damaged variants mutate faster than the whole file: the
		// first lines, one cut mid-line, two swapped.
		lines := bytes.Split(data, []byte("\n"))
		lines = lines[:min(len(lines), 10)]
		f.Add(bytes.Join(lines, []byte("\n")))
		f.Add(bytes.Join(lines, []byte("\n"))[:len(lines[0])+len(lines[1])/2])
		lines[2], lines[4] = lines[4], lines[2]
		f.Add(bytes.Join(lines, []byte("\n")))
	}
	for _, s := range []string{"", "\n", "{}", "{\"type\":\"user\"}\n\n", "[[[[[[[[[[", "{\"a\":\"\\u12\"}", "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":1e400}}}", "\xff\n\x00\n"} {
		f.Add([]byte(s))
	}
}

// fuzzRead checks Read's promises on any input: no panic, no error, every
// line counted, caps and gist lengths held, and TailUsage agreeing.
func fuzzRead(f *testing.F, format Format) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), format, ReadOptions{Root: osPath("/w"), MaxExchanges: 4})
		if err != nil {
			t.Fatal(err)
		}
		if s.Lines != countLines(data) || s.BadLines > s.Lines || len(s.BadLineNumbers) > 20 || len(s.BadLineNumbers) > s.BadLines {
			t.Fatalf("Lines %d (want %d), BadLines %d, numbers %v", s.Lines, countLines(data), s.BadLines, s.BadLineNumbers)
		}
		if len(s.FilesRead) > 100 || len(s.FilesModified) > 100 || len(s.ToolsUsed) > 100 || len(s.ToolFailures) > 20 || len(s.Thread.KeyExchanges) > 4 {
			t.Fatalf("a cap was exceeded: %+v", s)
		}
		for _, fl := range s.ToolFailures {
			if utf8.RuneCountInString(fl.Summary) > 120 || strings.ContainsAny(fl.Summary, "\n\r") || fl.Line < 1 || fl.Line > s.Lines {
				t.Fatalf("failure %+v", fl)
			}
		}
		for _, e := range s.Thread.KeyExchanges {
			if utf8.RuneCountInString(string(e.Gist)) > 120 || strings.ContainsAny(string(e.Gist), "\n\r") || e.Gist == "" || e.Role != "user" && e.Role != "assistant" {
				t.Fatalf("exchange %+v", e)
			}
		}
		if utf8.RuneCountInString(string(s.Thread.Summary)) > 205 {
			t.Fatalf("summary %q", s.Thread.Summary)
		}
		u, ok, err := tailUsage(bytes.NewReader(data), int64(len(data)), format, int64(len(data))+1)
		if err != nil || ok != s.UsageKnown || u != s.Usage {
			t.Fatalf("tailUsage = %+v, %v, %v; Read said %+v, %v", u, ok, err, s.Usage, s.UsageKnown)
		}
	})
}

func FuzzReadClaudeCode(f *testing.F) {
	addSeeds(f, "claude-code-small.jsonl")
	fuzzRead(f, ClaudeCode)
}

func FuzzReadCodex(f *testing.F) {
	addSeeds(f, "codex-rollout.jsonl")
	fuzzRead(f, Codex)
}

func FuzzReadGemini(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","projectHash":"h"}` + "\n" + `{"id":"g","type":"gemini","content":"x","tokens":{"input":5,"cached":9},"toolCalls":[{"id":"c","name":"replace","args":{"file_path":"/a"},"status":"error"}]}` + "\n" + `{"$rewindTo":"u"}` + "\n" + `{"$set":{"messages":[]}}`))
	fuzzRead(f, Gemini)
}

func FuzzReadOpenClaw(f *testing.F) {
	addSeeds(f, "openclaw-session.jsonl")
	fuzzRead(f, OpenClaw)
}

func FuzzReadQwenCode(f *testing.F) {
	addSeeds(f, "qwen-code-session.jsonl")
	fuzzRead(f, QwenCode)
}

func FuzzReadCopilot(f *testing.F) {
	addSeeds(f, "copilot-events.jsonl")
	fuzzRead(f, Copilot)
}

func FuzzReadOpenCode(f *testing.F) {
	addSeeds(f, "opencode-session.jsonl")
	fuzzRead(f, OpenCode)
}

// FuzzRepair: no panic; the output parses with no bad line and needs no
// second repair; an input that needs no repair is returned as it is. It
// fuzzes the repair itself: the file steps around it (backup, lock,
// fsync'd replace) are the unit tests' business, and their fsyncs would
// slow fuzzing a hundredfold.
func FuzzRepair(f *testing.F) {
	addSeeds(f, "openclaw-session.jsonl", "claude-code-small.jsonl", "codex-rollout.jsonl")
	f.Add(ocSession(ocUserE("go"), ocCallE(ocCall("c1", "read"), ocCall("", "x")), ocUserE("wait"), ocResultE("c1", "ok"), ocResultE("c1", "dup"), ocResultE("zz", "orphan")))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := &RepairReport{}
		out, err := repairBytes(data, repairNow, rep)
		if err != nil {
			if !errors.Is(err, spec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		f := ClaudeCode
		if detectDocument(bytes.TrimSpace(out)) == Gemini {
			f = Gemini // one document over many lines, left as it is
		}
		s, err := Read(bytes.NewReader(out), f, ReadOptions{})
		if err != nil || s.BadLines != 0 {
			t.Fatalf("output has %d bad lines (%v):\n%s", s.BadLines, err, out)
		}
		if !rep.Changed && !bytes.Equal(out, data) {
			t.Fatal("unchanged, yet rewritten")
		}
		again := &RepairReport{}
		_, err = repairBytes(out, repairNow, again)
		if errors.Is(err, spec.ErrInvalid) && !anyLineDetected(out) {
			// The repair dropped every line that named the host (an
			// orphaned result beside an empty object): what is left is
			// no transcript, and a second repair rightly refuses it.
			return
		}
		if err != nil || again.Changed {
			t.Fatalf("not idempotent: first %+v, then %+v (%v)\nin:\n%s\nout:\n%s", rep, again, err, data, out)
		}
	})
}

func anyLineDetected(data []byte) bool {
	for line := range bytes.Lines(data) {
		if detectLine(bytes.TrimSpace(line)) != "" {
			return true
		}
	}
	return false
}
