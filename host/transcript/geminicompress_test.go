package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

// GeminiCompressedSince: a compression is a $set of the conversation
// holding a <state_snapshot> message, written after the offset; a $set
// without one (a resume of an uncompressed chat, lastUpdated) is none, and
// one before the offset is an earlier compression's.
func TestGeminiCompressedSince(t *testing.T) {
	meta := `{"sessionId":"s","projectHash":"h","startTime":"2026-11-26T00:00:00Z","lastUpdated":"2026-11-26T00:00:00Z","kind":"main"}` + "\n"
	user := `{"id":"u1","timestamp":"2026-11-26T00:00:00Z","type":"user","content":[{"text":"go"}]}` + "\n"
	snapshot := `{"$set":{"messages":[{"id":"s1","type":"user","content":[{"text":"<state_snapshot>the task</state_snapshot>"}]},{"id":"s2","type":"gemini","content":[{"text":"Got it."}]}]}}` + "\n"
	resume := `{"$set":{"messages":[{"id":"u1","type":"user","content":[{"text":"go"}]}]}}` + "\n"
	quoted := `{"id":"u2","timestamp":"2026-11-26T00:00:00Z","type":"user","content":[{"text":"what is \"$set\" and <state_snapshot>x</state_snapshot>?"}]}` + "\n"
	dir := t.TempDir()
	for _, tc := range []struct {
		name, before, after string
		want                bool
	}{
		{"compressed after the offset", meta + user, snapshot, true},
		{"nothing after the offset", meta + user, "", false},
		{"a resume, no compression", meta + user, resume + `{"$set":{"lastUpdated":"x"}}` + "\n", false},
		{"an earlier compression only", meta + snapshot + user, resume, false},
		{"a prompt quoting the words", meta + user, quoted, false},
	} {
		p := filepath.Join(dir, "chat.jsonl")
		os.WriteFile(p, []byte(tc.before+tc.after), 0o644)
		got, err := GeminiCompressedSince(p, int64(len(tc.before)))
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	// A file rewritten shorter than the offset is read from its start.
	p := filepath.Join(dir, "chat.jsonl")
	os.WriteFile(p, []byte(meta+snapshot), 0o644)
	if got, err := GeminiCompressedSince(p, 1<<20); err != nil || !got {
		t.Errorf("offset past the end: %v, %v", got, err)
	}
	// The older one-document layout cannot tell: compressed.
	if got, err := GeminiCompressedSince(filepath.Join("testdata", "gemini-session.json"), 10); err != nil || !got {
		t.Errorf("one-document layout: %v, %v", got, err)
	}
	if _, err := GeminiCompressedSince(filepath.Join(dir, "missing"), 0); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
