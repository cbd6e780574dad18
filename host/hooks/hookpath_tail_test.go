package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/internal/hookpath"
)

// jsonscanHeader heads internal/hookpath/jsonscan.go, before the copy.
const jsonscanHeader = `// Code copied from host/transcript/jsonscan.go; DO NOT EDIT: edit that
// file and copy it here (TestJSONScanCopy in host/hooks says how).

//lint:file-ignore U1000 a copy of host/transcript's scanner, of which the tail reading uses a part

`

// internal/hookpath's JSON scanner is host/transcript's, byte for byte
// but for a header and the package clause: ctxgit-hook cannot link host/transcript
// (it imports spec and yaml.v3), and the two must read a line alike.
func TestJSONScanCopy(t *testing.T) {
	orig, err := os.ReadFile("../transcript/jsonscan.go")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := os.ReadFile("../../internal/hookpath/jsonscan.go")
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte(jsonscanHeader), bytes.Replace(orig, []byte("package transcript\n"), []byte("package hookpath\n"), 1)...)
	if !bytes.Equal(cp, want) {
		t.Fatal("internal/hookpath/jsonscan.go differs from host/transcript/jsonscan.go: copy it again, under the header this test names")
	}
}

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
