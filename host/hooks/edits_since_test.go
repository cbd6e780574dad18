package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SPEC §10.1, issue 23: the block's changed files add the transcript's
// edits since the previous checkpoint. An edit made before the first
// compaction's checkpoint is listed after it, and no longer after the
// second, where only the edit made in between is.
func TestBlockListsTranscriptEditsSinceTheLastCheckpoint(t *testing.T) {
	dir := initialised(t)
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	// now (the hooks' clock) is 2026-11-22T10:00:00Z: old.go is edited an
	// hour before the first checkpoint, new.go half an hour after it.
	line := func(uuid, parent, ts, typ, content string) string {
		v := map[string]any{"isSidechain": false, "userType": "external", "cwd": dir, "sessionId": "since", "type": typ, "uuid": uuid,
			"timestamp": ts, "message": map[string]any{"role": typ, "content": json.RawMessage(content)}}
		if parent != "" {
			v["parentUuid"] = parent
		}
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	edit := func(n, path, ts string) string {
		quoted, _ := json.Marshal(path) // on Windows, backslashes
		return line("a"+n, "p"+n, ts, "assistant", `[{"type":"tool_use","id":"t`+n+`","name":"Write","input":{"file_path":`+string(quoted)+`,"content":"x"}}]`) +
			line("r"+n, "a"+n, ts, "user", `[{"tool_use_id":"t`+n+`","type":"tool_result","content":"File created successfully","is_error":false}]`)
	}
	first := line("p1", "", "2026-11-22T08:59:00Z", "user", `"write old.go"`) + edit("1", filepath.Join(dir, "old.go"), "2026-11-22T09:00:00Z")
	if err := os.WriteFile(tr, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]string{"session_id": "since", "transcript_path": tr, "cwd": dir, "trigger": "auto"})
	start, _ := json.Marshal(map[string]string{"session_id": "since", "transcript_path": tr, "cwd": dir, "source": "compact"})
	compact := func() string {
		run(t, dir, "claude-code", "pre-compact", string(payload))
		return contextText(t, run(t, dir, "claude-code", "session-start", string(start)))
	}
	block := compact()
	if !strings.Contains(block, "\n- M old.go\n") {
		t.Errorf("the first checkpoint's block lacks the session's edit:\n%s", block)
	}

	second := line("p2", "r1", "2026-11-22T10:29:00Z", "user", `"now write new.go"`) + edit("2", filepath.Join(dir, "new.go"), "2026-11-22T10:30:00Z")
	f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(second); err != nil {
		t.Fatal(err)
	}
	f.Close()
	block = compact()
	if !strings.Contains(block, "\n- M new.go\n") {
		t.Errorf("the block lacks the edit made since the previous checkpoint:\n%s", block)
	}
	if strings.Contains(block, "- M old.go") {
		t.Errorf("the block lists an edit made before the previous checkpoint:\n%s", block)
	}
}
