//go:build unix

package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

// PeekAt (the overview bare `ctxgit` and the MCP status tool print) reads
// the hook-failed markers by the file rule: one a repository commits as a
// link to /dev/zero or as a FIFO is skipped at once, not read without end
// (issue 32 defect 4) or waited on; a real one is listed.
func TestPeekAtRefusesLinkedMarkers(t *testing.T) {
	root := t.TempDir()
	dir := localPath(root, failedDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "claude-code-pre-compact.json")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "codex-session-start.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(failure{At: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Host: "gemini", Event: "after-tool"})
	if err := os.WriteFile(filepath.Join(dir, "gemini-after-tool.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	wstest.Within(t, "PeekAt", func() {
		if p := PeekAt(root, "s1"); len(p.Failures) != 1 || p.Failures[0].Host != "gemini" {
			t.Errorf("failures %+v, want the one regular marker", p.Failures)
		}
	})
}
