package retention_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/retention"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// pruneWorkspace is a plain-directory workspace (private store) whose
// clock the test moves.
func pruneWorkspace(t *testing.T) (*workspace.Workspace, *time.Time) {
	t.Helper()
	root := realpath(t, t.TempDir())
	now := fixedNow
	env := workspace.Env{Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Cwd: root}
	w, err := workspace.Open(env, root)
	if err != nil {
		t.Fatal(err)
	}
	return w, &now
}

func checkpointAt(t *testing.T, w *workspace.Workspace, now *time.Time, at time.Time, session, file, content string) *workspace.CheckpointResult {
	t.Helper()
	*now = at
	if file != "" {
		if err := os.WriteFile(w.Path(file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Checkpoint(workspace.CheckpointOptions{Session: session, Message: file + " " + content})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func intp(n int) *int { return &n }

// SPEC §14.2: a checkpoint whose session base was pruned away diffs
// against the oldest checkpoint left on the chain and records it; the
// stat cache is gone after prune and rebuilt without a warning.
func TestPruneSessionBaseAndStatCache(t *testing.T) {
	w, now := pruneWorkspace(t)
	for i, c := range []string{"one", "two", "three", "four"} {
		checkpointAt(t, w, now, fixedNow.Add(time.Duration(i)*time.Minute), "default", "a.txt", c)
	}
	if _, err := os.Stat(w.LocalPath("statcache")); err != nil {
		t.Fatalf("no stat cache before prune: %v", err)
	}
	// The pruned commits were written long ago: past the grace period in
	// which an unreachable object is kept (SPEC §14.4).
	when := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(w.Path(".ctxgit/store.git/objects"), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			os.Chtimes(p, when, when)
		}
		return nil
	})
	res, err := retention.Prune(w, retention.PruneOptions{Keep: intp(2)})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Sessions[0]; s.Action != retention.PruneTrim || strings.Join(s.Dropped, ",") != "cp_001,cp_002" || s.Oldest != "cp_003" || s.Newest != "cp_004" {
		t.Fatalf("plan = %+v", s)
	}
	if _, err := os.Stat(w.LocalPath("statcache")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat cache survived prune: %v", err)
	}
	log, err := w.Log("default", 0)
	if err != nil || len(log) != 2 {
		t.Fatalf("log after prune = %d entries, %v", len(log), err)
	}
	root := log[1].Commit

	os.WriteFile(w.Path("b.txt"), []byte("new"), 0o644)
	after := checkpointAt(t, w, now, fixedNow.Add(10*time.Minute), "default", "a.txt", "five")
	if len(after.Problems) != 0 || after.Snapshot.CacheNote != "" {
		t.Fatalf("checkpoint after prune warned: %v %q", after.Problems, after.Snapshot.CacheNote)
	}
	cp := after.Checkpoint
	if cp.Meta.SessionBase != root.String() {
		t.Fatalf("session_base = %s, want the oldest kept checkpoint %s", cp.Meta.SessionBase, root)
	}
	// Since cp_003 (a.txt = "three"): a.txt changed and b.txt appeared.
	var since []string
	for _, c := range cp.Resources.SinceSession {
		since = append(since, c.Status+" "+c.Path)
	}
	if strings.Join(since, ",") != "M a.txt,A b.txt" {
		t.Fatalf("files changed since the session began = %v", since)
	}
}

// SPEC §14.1: idle sessions go whole, the cap drops the longest idle, the
// workspace's newest session always stays, and a dry run writes nothing.
func TestPrunePlan(t *testing.T) {
	w, now := pruneWorkspace(t)
	day := 24 * time.Hour
	checkpointAt(t, w, now, fixedNow.Add(-40*day), "ancient", "", "")
	checkpointAt(t, w, now, fixedNow.Add(-10*day), "b", "", "")
	checkpointAt(t, w, now, fixedNow.Add(-10*day), "a", "", "")
	checkpointAt(t, w, now, fixedNow.Add(-1*day), "recent", "", "")

	*now = fixedNow
	res, err := retention.Prune(w, retention.PruneOptions{DryRun: true, MaxSessions: intp(2)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res.Sessions {
		got[s.Session] = s.Action + ": " + s.Reason
	}
	// a and b tie on time: the key that sorts last (b) goes first.
	want := map[string]string{
		"ancient": "drop: idle 40 days, over retention.max_idle_days (30)",
		"b":       "drop: one of the longest idle over retention.max_sessions (2)",
		"a":       "keep: ",
		"recent":  "keep: ",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if sessions, _ := w.Sessions(); len(sessions) != 4 {
		t.Fatalf("a dry run changed the sessions: %v", sessions)
	}

	// A year later every session is idle; the newest stays.
	*now = fixedNow.Add(365 * day)
	res, err = retention.Prune(w, retention.PruneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sessions, _ := w.Sessions()
	if len(sessions) != 1 || sessions[0].Name != "recent" {
		t.Fatalf("after prune: %v", sessions)
	}
	if res.Repack == nil || res.Repack.RemovedLoose == 0 {
		t.Fatalf("repack = %+v", res.Repack)
	}

	// Limits below their minimum are usage errors.
	for _, o := range []retention.PruneOptions{{Keep: intp(0)}, {MaxIdleDays: intp(-1)}, {MaxSessions: intp(-1)}} {
		if _, err := retention.Prune(w, o); !errors.Is(err, spec.ErrUsage) {
			t.Errorf("Prune(%+v) = %v, want a usage error", o, err)
		}
	}
}

// SPEC §14.3, §14.4: when the repack cannot run (an object is missing),
// the refs have already moved to complete chains, the error says so, and
// nothing is deleted.
func TestPruneRepackFailure(t *testing.T) {
	w, now := pruneWorkspace(t)
	for i, c := range []string{"one", "two", "three"} {
		checkpointAt(t, w, now, fixedNow.Add(time.Duration(i)*time.Minute), "default", "f"+c, c)
	}
	lost := vcs.HashObject(vcs.BlobObject, []byte("three"))
	store := filepath.Join(w.Root, filepath.FromSlash(spec.PrivateStoreDir), "objects")
	if err := os.Remove(filepath.Join(store, lost.String()[:2], lost.String()[2:])); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(store, "??", "*"))
	res, err := retention.Prune(w, retention.PruneOptions{Keep: intp(1)})
	if err == nil || !strings.HasPrefix(err.Error(), "history pruned, but the repack failed (nothing was deleted by it): repack: blob "+lost.Short()) {
		t.Fatalf("Prune = %v", err)
	}
	if res == nil || res.Sessions[0].Action != retention.PruneTrim || res.Repack != nil {
		t.Fatalf("result = %+v", res)
	}
	if log, _ := w.Log("default", 0); len(log) != 1 || log[0].CheckpointID != "cp_003" {
		t.Fatalf("log = %+v", log)
	}
	after, _ := filepath.Glob(filepath.Join(store, "??", "*"))
	if len(after) != len(before)+1 { // the re-created commit
		t.Fatalf("loose objects %d → %d", len(before), len(after))
	}
}

// SPEC §14.1 rule 5: a chain holding a merge is not rewritten; it can
// still be dropped whole.
func TestPruneLeavesMergesAlone(t *testing.T) {
	w, now := pruneWorkspace(t)
	checkpointAt(t, w, now, fixedNow, "side", "a.txt", "side")
	checkpointAt(t, w, now, fixedNow.Add(time.Minute), "main", "a.txt", "one")
	checkpointAt(t, w, now, fixedNow.Add(2*time.Minute), "main", "a.txt", "two")
	store, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	head, _ := store.ReadRef(w.SessionRef("main"))
	side, _ := store.ReadRef(w.SessionRef("side"))
	c, _ := vcs.ReadCommit(store, head)
	c.Parents = []vcs.Hash{head, side}
	merge, err := vcs.WriteCommit(store, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.UpdateRef(w.SessionRef("main"), merge, head); err != nil {
		t.Fatal(err)
	}
	res, err := retention.Prune(w, retention.PruneOptions{Keep: intp(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sessions {
		if s.Session == "main" && (s.Action != retention.PruneKeep || !strings.Contains(s.Reason, "merge commit")) {
			t.Fatalf("main = %+v", s)
		}
	}
	if got, _ := store.ReadRef(w.SessionRef("main")); got != merge {
		t.Fatal("a chain with a merge was rewritten")
	}
	// Idle, it goes whole like any other.
	*now = fixedNow.Add(24 * time.Hour * 100)
	checkpointAt(t, w, now, *now, "fresh", "", "")
	if _, err := retention.Prune(w, retention.PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if sessions, _ := w.Sessions(); len(sessions) != 1 || sessions[0].Name != "fresh" {
		t.Fatalf("sessions = %v", sessions)
	}
}
