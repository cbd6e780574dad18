package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// docs/HOSTS.md, "Transcripts": a Claude Code session recorded on
// Windows (testdata/windows-claude-code.jsonl): drive-letter paths with
// backslashes, a lower-case drive with forward slashes (the VS Code
// extension's), a relative path with backslashes, a file outside the
// workspace, and CRLF line endings (a checkout with core.autocrlf, or a
// copy made on Windows). On Windows the workspace's files come out
// relative to it, whichever way they were written; elsewhere no such path
// is absolute, and each is kept as recorded.
func TestWindowsClaudeCodeTranscript(t *testing.T) {
	p := filepath.Join("testdata", "windows-claude-code.jsonl")
	root := `C:\Users\dev\app`
	s, err := ReadFile(p, ClaudeCode, ReadOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 15 || s.BadLines != 0 || s.Turns != 1 || s.Thread.LatestPrompt != "Make the importer accept Windows line endings." {
		t.Errorf("Lines %d, BadLines %d, Turns %d, LatestPrompt %q", s.Lines, s.BadLines, s.Turns, s.Thread.LatestPrompt)
	}
	if want := (Usage{InputTokens: 1, CacheCreationTokens: 200, CacheReadTokens: 13900, OutputTokens: 80, MessageID: "msg_W7"}); !s.UsageKnown || s.Usage != want {
		t.Errorf("Usage = %+v (known %v), want %+v", s.Usage, s.UsageKnown, want)
	}
	read := []string{`C:\Users\dev\app\importer\csv.go`}
	modified := []string{`C:\Users\dev\app\importer\csv.go`, "c:/Users/dev/app/importer/crlf_test.go", `docs\import.md`, `C:\Users\dev\notes.txt`}
	if runtime.GOOS == "windows" {
		read = []string{"importer/csv.go"}
		modified = []string{"importer/csv.go", "importer/crlf_test.go", "docs/import.md", `C:\Users\dev\notes.txt`}
	}
	if !reflect.DeepEqual(s.FilesRead, read) || !reflect.DeepEqual(s.FilesModified, modified) {
		t.Errorf("FilesRead %q, FilesModified %q; want %q, %q", s.FilesRead, s.FilesModified, read, modified)
	}
	if len(s.ToolFailures) != 1 || s.ToolFailures[0].Tool != "Bash" || s.ToolFailures[0].Target != "go test ./importer/..." {
		t.Errorf("ToolFailures = %+v, want the failing go test", s.ToolFailures)
	}
	// The tail reader and a resumed reading say what the whole reading
	// says, CRLF and all.
	if u, ok, err := TailUsage(p, ClaudeCode, 0); err != nil || !ok || u != s.Usage {
		t.Errorf("TailUsage = %+v, %v, %v; Read said %+v", u, ok, err, s.Usage)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("}\r\n{")) {
		t.Fatal("the fixture has lost its CRLF line endings")
	}
	dir := t.TempDir()
	grown, state := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "state.json")
	half := bytes.Index(data, []byte(`"msg_W4"`))
	half = bytes.LastIndexByte(data[:half], '\n') + 1
	if err := os.WriteFile(grown, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileResume(grown, ClaudeCode, ReadOptions{Root: root}, state); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grown, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFileResume(grown, ClaudeCode, ReadOptions{Root: root}, state)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("resumed reading:\n%+v\nwant %+v", got, s)
	}
}
