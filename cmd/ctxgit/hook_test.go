package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostFastPath answers exactly the command lines init --host writes for
// tool calls and turns, before the command-line app is built, and leaves
// everything else to the app.
func TestHostFastPath(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{".ctxgit/local/nudge"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".ctxgit/config.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTXGIT_NOW", "")
	t.Setenv("HOME", t.TempDir()) // a log outside a workspace goes to the user's cache
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir()) // the payload names the workspace, not the directory
	marker := `{"timestamp":"` + time.Now().UTC().Format(time.RFC3339) + `","used_pct":70,"flushed":false}`
	if err := os.WriteFile(filepath.Join(ws, ".ctxgit/local/nudge/s.json"), []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := `{"conversation_id":"s","hook_event_name":"postToolUse","workspace_roots":["` + filepath.ToSlash(ws) + `"]}`

	// The tool-call hook is answered here: the undelivered nudge, in
	// Cursor's shape.
	var out bytes.Buffer
	if !hostFastPath([]string{"ctxgit", "hook", "cursor", "post-tool-use"}, strings.NewReader(payload), &out) {
		t.Fatal("hook HOST EVENT not answered by the fast path")
	}
	if !strings.HasPrefix(out.String(), `{"additional_context":"Context is 70% full`) {
		t.Fatalf("fast path printed %q, want the nudge", out.String())
	}

	// A bad call fails open: nothing printed, one line logged in the
	// workspace the payload names.
	out.Reset()
	if !hostFastPath([]string{"ctxgit", "hook", "cursor", "no-such-event"}, strings.NewReader(payload), &out) || out.Len() != 0 {
		t.Fatalf("bad call: printed %q", out.String())
	}

	// Anything else goes through the app, stdin untouched: flags,
	// another number of words, other commands.
	for _, args := range [][]string{
		{"ctxgit", "hook", "cursor", "post-tool-use", "--root", ws},
		{"ctxgit", "--root", ws, "hook", "cursor", "post-tool-use"},
		{"ctxgit", "hook", "cursor"},
		{"ctxgit", "statusline", "--root", ws},
		{"ctxgit", "status"},
		{"ctxgit"},
	} {
		in := strings.NewReader(payload)
		if hostFastPath(args, in, &out) || in.Len() != len(payload) {
			t.Errorf("%q taken by the fast path", args)
		}
	}

	// The status line is the other command a host runs on every turn.
	out.Reset()
	if !hostFastPath([]string{"ctxgit", "statusline"}, strings.NewReader(`{"session_id":"s","cwd":"`+filepath.ToSlash(ws)+`"}`), &out) {
		t.Fatal("statusline not answered by the fast path")
	}
	if data, err := os.ReadFile(filepath.Join(ws, ".ctxgit/local/ctxgit.log")); err != nil || !strings.Contains(string(data), "hook cursor no-such-event: unknown hook") || strings.Count(string(data), "\n") != 1 {
		t.Errorf("log after one bad call: %q, %v", data, err)
	}
}
