package workspace_test

import (
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#show: a commit id names a checkpoint of any session; the
// named session's chain is searched first, and a prefix that two sessions'
// checkpoints share is a usage error listing both.
func TestResolveCommitIDAnySession(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir)
	os.WriteFile(filepath.Join(dir, "f"), []byte("a"), 0o644)
	a, err := w.Checkpoint(workspace.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	// Session "other" gets a copy of a's commit whose id shares its first
	// four digits with a's, found by varying the message.
	c, err := vcs.ReadCommit(store, a.Commit)
	if err != nil {
		t.Fatal(err)
	}
	c.Message = strings.Replace(c.Message, "Ctxgit-Session: default", "Ctxgit-Session: other", 1)
	prefix := a.Commit.String()[:4]
	base := c.Message
	for i := 0; ; i++ {
		c.Message = fmt.Sprintf("%sX-Try: %d\n", base, i)
		data := vcs.EncodeCommit(c)
		sum := sha1.Sum(append([]byte(fmt.Sprintf("commit %d\x00", len(data))), data...))
		if fmt.Sprintf("%x", sum[:2]) == prefix {
			break
		}
	}
	b, err := vcs.WriteCommit(store, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), prefix) || b == a.Commit {
		t.Fatalf("crafted %s does not share %s with %s", b, prefix, a.Commit)
	}
	if err := store.UpdateRef(w.SessionRef("other"), b, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}

	// The full id of the other session's checkpoint, from default.
	r, err := w.Resolve(b.String(), spec.DefaultSession)
	if err != nil || r.Session != "other" || r.Commit != b || r.Checkpoint == nil {
		t.Fatalf("full id of other's checkpoint from default = %+v, %v", r, err)
	}
	// An abbreviation unique across sessions, from a session that has
	// checkpoints of its own.
	r, err = w.Resolve(b.String()[:12], spec.DefaultSession)
	if err != nil || r.Session != "other" || r.Commit != b {
		t.Fatalf("abbreviated id of other's checkpoint from default = %+v, %v", r, err)
	}
	// The shared prefix: each session finds its own.
	if r, err := w.Resolve(prefix, spec.DefaultSession); err != nil || r.Commit != a.Commit {
		t.Fatalf("%s in default = %+v, %v", prefix, r, err)
	}
	if r, err := w.Resolve(prefix, "other"); err != nil || r.Commit != b {
		t.Fatalf("%s in other = %+v, %v", prefix, r, err)
	}
	// From a third session it is ambiguous: exit 2, both listed.
	_, err = w.Resolve(prefix, "third")
	if spec.ExitCode(err) != spec.ExitUsage {
		t.Fatalf("%s from a third session = %v, want a usage error", prefix, err)
	}
	for _, want := range []string{"ambiguous across sessions", a.Commit.String()[:12] + " (default:cp_001)", b.String()[:12] + " (other:cp_001)"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("ambiguity error %q does not say %q", err, want)
		}
	}
	// A SESSION: prefix keeps the search in that session.
	if _, err := w.Resolve("default:"+b.String()[:12], spec.DefaultSession); spec.ExitCode(err) != spec.ExitNotFound {
		t.Fatalf("default:%s = %v, want not found", b.String()[:12], err)
	}
}

// docs/cli.md#restore: which first arguments restore reads as a
// checkpoint, and which as a path.
func TestIsCheckpointName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"@", true}, {"@~2", true}, {"cp_003", true}, {"cafe", true}, {"0123456789abcdef0123456789abcdef01234567", true},
		{"other:cp_001", true}, {"x:not a name", true}, {"origin/default:@", true},
		{"", false}, {"a.txt", false}, {"./cafe", false}, {"caf", false}, {"src/", false}, {"cp_1x", false},
		{`C:\work\a.txt`, false}, {"c:/work/a.txt", false},
	} {
		if got := workspace.IsCheckpointName(tc.name); got != tc.want {
			t.Errorf("IsCheckpointName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Reading one session's checkpoint by id reads that session's chain: it
// lists no other session (which costs a read of every session's head, on
// a hook's path too), so a broken ref of another session is not met. Its
// short id is asked only for an error that names it.
func TestResolveReadListsNoSessions(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir)
	const key = "7f3c2a10-4b5e-4c3b-9e8f-0a1b2c3d4e5f"
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: key}); err != nil {
		t.Fatal(err)
	}
	store, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	lost := vcs.HashObject(vcs.CommitObject, []byte("gone"))
	if err := store.UpdateRef(spec.SessionRefPrefix+"broken", lost, vcs.ZeroHash); err != nil {
		t.Fatal(err)
	}
	w = openWS(t, dir)
	if _, err := w.ResolveRead("cp_001", key); err != nil {
		t.Fatal(err)
	}
	if bad := w.BadSessions(); len(bad) != 0 {
		t.Errorf("resolving %s:cp_001 listed the other sessions: met %v", key, bad)
	}
	_, err = w.ResolveRead("cp_009", key)
	if err == nil || !strings.Contains(err.Error(), "no checkpoint cp_009 in session 7f3c2a10 ") {
		t.Errorf("a missing checkpoint: %v, want it named with the session's short id", err)
	}
}
