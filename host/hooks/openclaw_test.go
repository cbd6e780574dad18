package hooks

import (
	"fmt"
	"os"
	"testing"
	"time"
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
