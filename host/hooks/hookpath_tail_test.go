package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/internal/hookpath"
)

// hookpath.TailUsage takes transcript.TailUsage's reading on every
// transcript of the hosts it reads, cut after every line and in the
// middle of the last one (a host still writing it).
func TestTailUsageAgrees(t *testing.T) {
	cases := map[string]transcript.Format{"claude-code": transcript.ClaudeCode, "codex": transcript.Codex, "gemini": transcript.Gemini}
	files := map[string][]string{
		"claude-code": {"claude-code-commands.jsonl", "claude-code-queued.jsonl", "claude-code-small.jsonl"},
		"codex":       {"codex-agents-md.jsonl", "codex-ide.jsonl", "codex-rollout.jsonl"},
		"gemini":      {"gemini-session.jsonl", "gemini-session.json"},
	}
	dir := t.TempDir()
	checked := 0
	for host, names := range files {
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var cuts []int
			for i, c := range data {
				if c == '\n' {
					cuts = append(cuts, i+1, max(0, i-7))
				}
			}
			cuts = append(cuts, len(data))
			for _, n := range cuts {
				path := filepath.Join(dir, strings.ReplaceAll(name, ".", "_"))
				if err := os.WriteFile(path, data[:n], 0o644); err != nil {
					t.Fatal(err)
				}
				want, wantOK, wantErr := transcript.TailUsage(path, cases[host], tailBytes)
				got, ok, err := hookpath.TailUsage(path, host)
				if err != nil {
					if host == "gemini" && wantErr == nil {
						continue // the older one-document layout: ctxgit hook reads it
					}
					t.Fatalf("%s cut at %d: hookpath: %v", name, n, err)
				}
				if wantErr != nil || ok != wantOK || got.Used() != want.Used() || got.ContextWindow != want.ContextWindow {
					t.Fatalf("%s cut at %d: hookpath read %+v %v, transcript %+v %v (%v)", name, n, got, ok, want, wantOK, wantErr)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d cuts compared", checked)
	}
}
