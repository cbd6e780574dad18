package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// exportTo runs exportSession for a Claude Code session with
// CLAUDE_ENV_FILE=path.
func exportTo(path, session string) error {
	c := &call{Request: Request{Host: "claude-code", Env: env("", map[string]string{"CLAUDE_ENV_FILE": path})}, session: session}
	return c.exportSession()
}

// TestExportSessionEnvFile: the env file is the host's, shared by its
// sessions, and may be anything (issue 24 item 5).
func TestExportSessionEnvFile(t *testing.T) {
	dir := t.TempDir()

	t.Run("last export wins", func(t *testing.T) {
		path := filepath.Join(dir, "shared.sh")
		for _, s := range []string{"A", "B", "A", "A"} {
			if err := exportTo(path, s); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := os.ReadFile(path)
		want := "export CTXGIT_SESSION='A'\nexport CTXGIT_SESSION='B'\nexport CTXGIT_SESSION='A'\n"
		if string(data) != want {
			t.Fatalf("start A, start B, resume A, resume A wrote\n%s\nwant\n%s", data, want)
		}
		if got := lastSessionExport(data); got != "export CTXGIT_SESSION='A'" {
			t.Fatalf("the file leaves %q current, want A", got)
		}
	})

	t.Run("not glued to an open line", func(t *testing.T) {
		path := filepath.Join(dir, "open.sh")
		os.WriteFile(path, []byte("export PATH=/x"), 0o600)
		if err := exportTo(path, "A"); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); string(data) != "export PATH=/x\nexport CTXGIT_SESSION='A'\n" {
			t.Fatalf("wrote %q", data)
		}
	})

	t.Run("only the tail is read", func(t *testing.T) {
		// A 1 GiB sparse file whose last export is B: reading it whole
		// would take seconds and a gigabyte; the tail is read at once.
		path := filepath.Join(dir, "huge.sh")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		tail := "\nexport CTXGIT_SESSION='B'\n"
		if _, err := f.WriteAt([]byte(tail), 1<<30); err != nil {
			t.Fatal(err)
		}
		f.Close()
		start := time.Now()
		data, err := regfile.ReadTailFollowing(path, envFileTail)
		if err != nil || len(data) != envFileTail || !strings.HasSuffix(string(data), tail) {
			t.Fatalf("ReadTail read %d bytes, %v", len(data), err)
		}
		if err := exportTo(path, "B"); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Size() != 1<<30+int64(len(tail)) {
			t.Fatalf("B is the last export, yet the file grew to %d", fi.Size())
		}
		t.Logf("tail read in %v", time.Since(start))
	})

}
