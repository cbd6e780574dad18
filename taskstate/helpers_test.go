package taskstate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/workspace"
)

// plainWS is a plain-directory workspace with a fixed clock, holding files.
func plainWS(t *testing.T, files map[string]string) *workspace.Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := workspace.Open(workspace.Env{Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
