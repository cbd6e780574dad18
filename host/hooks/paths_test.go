package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Payload paths are used as the host wrote them: a cwd and a
// transcript_path with spaces, backslashes, quotes and non-ASCII letters
// (JSON-escaped in the payload) find the workspace and the transcript.
// On Windows a backslash is the separator; elsewhere it is a character of
// a name, which is what this test puts in the names.
func TestPayloadPathsWithSpacesAndBackslashes(t *testing.T) {
	odd, sub, proj := `my repo\with "quotes" & spaces`, `src dir\x`, `C:\Users\dev\.claude\projects\my proj`
	if runtime.GOOS == "windows" {
		// Quotes and colons are not name characters there, and a
		// backslash separates.
		odd, proj = `my repo\with 'quotes' & spaces`, `Users\dev\.claude\projects\my proj`
	}
	parent := filepath.Join(t.TempDir(), odd, "Ünïcode dir")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	base := initialised(t)
	root := filepath.Join(parent, "ws")
	if err := os.Rename(base, root); err != nil {
		t.Fatal(err)
	}
	sub = filepath.Join(root, sub)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), proj, "session one.jsonl")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	// 140,000 of the default 200,000 tokens: past pressure.flush.
	line := `{"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":139000,"output_tokens":5}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(map[string]any{
		"session_id": "s", "cwd": sub, "transcript_path": transcript,
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": `ls "C:\Program Files"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(payload), `my repo\\with `) {
		t.Fatalf("payload does not escape the path: %s", payload)
	}
	// The hook runs from elsewhere, as a host's shell may: only the
	// payload names the workspace.
	out := run(t, t.TempDir(), "claude-code", "post-tool-use", string(payload))
	var got struct {
		HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || !strings.HasPrefix(got.HookSpecificOutput.AdditionalContext, "Context is 70% full") {
		t.Fatalf("post-tool-use = %q (%v); want the nudge from the transcript's 70%%", out, err)
	}
	if _, err := os.Stat(nudgePath(root, "s")); err != nil {
		t.Errorf("no nudge marker in the workspace the cwd names: %v", err)
	}
}
