package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// heldSpawn stands in for the detached child: it runs the job it is handed
// only after delay (a child slow to start on a loaded machine), and wait
// returns once every job it started has finished.
type heldSpawn struct {
	t     *testing.T
	dir   string
	delay time.Duration
	wg    sync.WaitGroup
}

func (h *heldSpawn) spawn(args []string) error {
	// hook HOST EVENT --root ROOT --job PATH
	if len(args) != 7 || args[0] != "hook" || args[3] != "--root" || args[5] != "--job" {
		h.t.Errorf("spawned %q, want hook HOST EVENT --root ROOT --job PATH", args)
		return nil
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		time.Sleep(h.delay)
		err := Handle(Request{Host: args[1], Event: args[2], Root: args[4], Job: args[6], Env: env(h.dir, nil), Out: &bytes.Buffer{}})
		if err != nil {
			h.t.Errorf("detached %s %s: %v", args[1], args[2], err)
		}
	}()
	return nil
}

func (h *heldSpawn) wait() { h.wg.Wait() }

// The compaction checkpoint waits for this session's detached checkpoint
// still in flight, so it is the session's newest and the recovery is built
// from it (docs/design.md, "The compaction checkpoint is the newest"):
// Claude Code's `claude -c -p /compact` runs SessionStart "resume" (whose
// checkpoint goes to a detached child) and PreCompact right after it.
func TestCompactionCheckpointIsNewestWithJobInFlight(t *testing.T) {
	dir := initialised(t)
	h := &heldSpawn{t: t, dir: dir, delay: 300 * time.Millisecond}
	defer h.wait()
	start := `{"session_id":"s-1","cwd":".","source":"resume"}`
	if err := Handle(Request{Host: "claude-code", Event: "session-start", Input: []byte(start), Env: env(dir, nil), Out: &bytes.Buffer{}, Spawn: h.spawn}); err != nil {
		t.Fatal(err)
	}
	if n := jobsInFlight(dir, filepath.Join(dir, ".ctxgit", "local", "jobs"), "s-1", time.Now()); n != 1 {
		t.Fatalf("%d jobs in flight after session-start, want 1 (the detached checkpoint held)", n)
	}
	run(t, dir, "claude-code", "pre-compact", `{"session_id":"s-1","cwd":".","trigger":"manual"}`)
	h.wait()

	w, err := workspace.Open(env(dir, nil), dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := w.Log("s-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Trigger != spec.TriggerCompaction || entries[1].Trigger != "session-start" {
		var got []string
		for _, e := range entries {
			got = append(got, e.CheckpointID+" "+e.Trigger)
		}
		t.Fatalf("checkpoints newest first: %q, want the compaction's, then session-start's", got)
	}
	out := run(t, dir, "claude-code", "session-start", `{"session_id":"s-1","cwd":".","source":"compact"}`)
	if !strings.Contains(out, "Post-Compaction Recovery") || !strings.Contains(out, "Checkpoint "+entries[0].CheckpointID+" ·") {
		t.Errorf("the recovery is not the compaction checkpoint %s's:\n%s", entries[0].CheckpointID, out)
	}
}

// A job that does not land within the wait does not hold the compaction
// up past it: the checkpoint is taken, and the late job lands after it.
func TestCompactionWaitIsBounded(t *testing.T) {
	saved := compactionJobWait
	compactionJobWait = 50 * time.Millisecond
	defer func() { compactionJobWait = saved }()
	dir := initialised(t)
	h := &heldSpawn{t: t, dir: dir, delay: time.Second}
	start := `{"session_id":"s-1","cwd":".","source":"startup"}`
	if err := Handle(Request{Host: "claude-code", Event: "session-start", Input: []byte(start), Env: env(dir, nil), Out: &bytes.Buffer{}, Spawn: h.spawn}); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "claude-code", "pre-compact", `{"session_id":"s-1","cwd":".","trigger":"manual"}`)
	w, err := workspace.Open(env(dir, nil), dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := w.Log("s-1", 0)
	if err != nil || len(entries) != 1 || entries[0].Trigger != spec.TriggerCompaction {
		t.Errorf("before the held job ran: %v, %+v; want the compaction checkpoint alone", err, entries)
	}
	h.wait()
	if entries, err := w.Log("s-1", 0); err != nil || len(entries) != 2 || entries[0].Trigger != "session-start" {
		t.Errorf("after the held job ran: %v, %+v; want its checkpoint after the compaction's", err, entries)
	}
}

// Only this session's job files, by the name deferCheckpoint gives them,
// and none older than staleJob, are waited for.
func TestJobsInFlight(t *testing.T) {
	root := t.TempDir()
	dir := localPath(root, "jobs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	files := map[string]time.Duration{
		"s-1-session-start-1764151200000000000.json":   0,               // counted
		"s-1-session-end-1764151200000000001.json":     time.Second,     // counted
		"s-1-session-end-1764151100000000000.json":     2 * time.Minute, // stale: its child died
		"s-1-x-session-start-1764151200000000000.json": 0,               // session s-1-x
		"s-2-session-start-1764151200000000000.json":   0,               // another session
		"s-1-session-start-1764151200000000000.tmp":    0,               // not a job file
		"s-1-pre-compact-1764151200000000000.json":     0,               // no event defers that
		"s-1-session-start-x.json":                     0,               // no time
	}
	for name, age := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if n := jobsInFlight(root, dir, "s-1", now); n != 2 {
		t.Errorf("jobs in flight for s-1: %d, want 2", n)
	}
	if n := jobsInFlight(root, dir, "s-1-x", now); n != 1 {
		t.Errorf("jobs in flight for s-1-x: %d, want 1", n)
	}
	if n := jobsInFlight(root, localPath(root, "missing"), "s-1", now); n != 0 {
		t.Errorf("jobs in flight with no jobs directory: %d, want 0", n)
	}
}

// Gemini's compaction checkpoint, taken where an AfterTool confirms a
// compression, waits for the session's detached checkpoint in flight too
// (geminiJobWait): here a resume's base checkpoint held 300 ms.
func TestGeminiCompactionCheckpointIsNewestWithJobInFlight(t *testing.T) {
	dir, w := geminiWorkspace(t)
	g := newGeminiChat(t)
	g.turn("RUN: go test", 600_000)
	run(t, dir, "gemini", "after-tool", g.payload("AfterTool", "")) // the compression is due
	h := &heldSpawn{t: t, dir: dir, delay: 300 * time.Millisecond}
	defer h.wait()
	if err := Handle(Request{Host: "gemini", Event: "session-start", Input: []byte(g.payload("SessionStart", `,"source":"resume"`)),
		Env: env(dir, nil), Out: &bytes.Buffer{}, Spawn: h.spawn}); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "gemini", "pre-compress", g.payload("PreCompress", `,"trigger":"auto"`))
	g.compressed()
	g.turn("RUN: go vet", 40_000)
	out := run(t, dir, "gemini", "after-tool", g.payload("AfterTool", ""))
	h.wait()
	entries, err := w.Log("gem-1", 0)
	// (The reading at 600k took an automatic checkpoint before both.)
	if err != nil || len(entries) < 2 || entries[0].Trigger != spec.TriggerCompaction || entries[1].Trigger != "session-start" {
		t.Fatalf("checkpoints newest first: %+v, %v; want the compaction's, then session-start's", entries, err)
	}
	if !strings.Contains(out, "Checkpoint "+entries[0].CheckpointID+" ·") {
		t.Errorf("the recovery is not the compaction checkpoint %s's:\n%s", entries[0].CheckpointID, out)
	}
}
