package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// TestMain keeps the user-level files hooks write (the log of calls
// outside a workspace, OpenClaw's session roots) in a folder of the test
// run's own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxgit-hooks-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// docs/HOSTS.md, "OpenClaw": each bootstrap records its session key's
// repository for the compaction events, which name none; the file keeps
// the newest maxOpenClawRoots keys and is not rewritten for a key
// recorded within the hour.
func TestOpenClawRoots(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path := openclawRootsPath()
	if path == "" {
		t.Skip("no user cache directory here")
	}
	now := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < maxOpenClawRoots+10; i++ {
		c := &call{session: fmt.Sprintf("agent-s%03d", i)}
		c.rememberRoot(fmt.Sprintf("/repo/%d", i), now.Add(time.Duration(i)*time.Second))
	}
	roots := readOpenClawRoots(path)
	if len(roots) != maxOpenClawRoots {
		t.Fatalf("%d keys kept, want %d", len(roots), maxOpenClawRoots)
	}
	if _, ok := roots["agent-s000"]; ok {
		t.Error("the oldest key was kept")
	}
	if r := roots[fmt.Sprintf("agent-s%03d", maxOpenClawRoots+9)]; r.Root != fmt.Sprintf("/repo/%d", maxOpenClawRoots+9) {
		t.Errorf("newest key: %+v", r)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Recorded a minute ago: no write.
	c := &call{session: fmt.Sprintf("agent-s%03d", maxOpenClawRoots+9)}
	os.Chtimes(path, fi.ModTime().Add(-time.Hour), fi.ModTime().Add(-time.Hour))
	c.rememberRoot(fmt.Sprintf("/repo/%d", maxOpenClawRoots+9), now.Add(time.Duration(maxOpenClawRoots+9)*time.Second+time.Minute))
	if fi2, _ := os.Stat(path); !fi2.ModTime().Equal(fi.ModTime().Add(-time.Hour)) {
		t.Error("a key recorded a minute ago was written again")
	}
	// A damaged file is started afresh, not a failure.
	os.WriteFile(path, []byte("{not json"), 0o600)
	(&call{session: "agent-new"}).rememberRoot("/repo/new", now)
	if r := readOpenClawRoots(path); len(r) != 1 || r["agent-new"].Root != "/repo/new" {
		t.Errorf("after a damaged file: %+v", r)
	}
}

// docs/HOSTS.md, "OpenClaw": the compaction checkpoint's usage is what
// the provider reported (the transcript's newest usage) over the window
// of the configured model (the bootstrap's contextWindow); OpenClaw's
// tokenCount, its own estimate when it compacts on request, counts only
// when the transcript holds no usage.
func TestOpenClawCompactionUsage(t *testing.T) {
	for _, tc := range []struct {
		name, transcript string
		tokens           int64
		source           string
	}{
		{"the provider's tokens", `{"type":"session","version":3,"id":"s1","timestamp":"2030-01-01T09:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2030-01-01T09:00:01.000Z","message":{"role":"user","content":"list the files"}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2030-01-01T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input":1000,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":1020}}}
`, 1000, "transcript"},
		{"no usage in the transcript: OpenClaw's count", `{"type":"session","version":3,"id":"s1","timestamp":"2030-01-01T09:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2030-01-01T09:00:01.000Z","message":{"role":"user","content":"list the files"}}
`, 120, "host"},
	} {
		dir := initialised(t)
		file := filepath.Join(t.TempDir(), "session.jsonl")
		os.WriteFile(file, []byte(tc.transcript), 0o644)
		run(t, dir, "openclaw", "bootstrap", fmt.Sprintf(`{"type":"agent","action":"bootstrap","sessionKey":"agent:main:main","contextWindow":100000,"context":{"workspaceDir":%q,"sessionId":"s1","bootstrapFiles":[]}}`, dir))
		run(t, dir, "openclaw", "compact-before", fmt.Sprintf(`{"type":"session","action":"compact:before","sessionKey":"agent:main:main","tokenCount":120,"sessionFile":%q,"context":{"sessionId":"s1","tokenCount":120}}`, file))
		w, err := workspace.Open(env(dir, nil), dir)
		if err != nil {
			t.Fatal(err)
		}
		r, err := w.Resolve("", spec.SanitizeSessionKey("agent:main:main"))
		if err != nil {
			t.Fatal(err)
		}
		u := r.Checkpoint.Meta.TokenUsage
		if u.InputTokens != tc.tokens || u.ContextWindow != 100000 || u.Source != tc.source {
			t.Errorf("%s: usage %+v; want %d tokens of 100000, source %s", tc.name, u, tc.tokens, tc.source)
		}
	}
}
