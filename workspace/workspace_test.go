package workspace_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/proc"
	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/markdown"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

var fixedNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func testEnv(cwd string, vars map[string]string) workspace.Env {
	return workspace.Env{
		Now:    func() time.Time { return fixedNow },
		Getenv: func(k string) string { return vars[k] },
		Cwd:    cwd,
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	wstest.NeedGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func realpath(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// SPEC §2: --root, then CTXGIT_ROOT, then the nearest .ctxgit/, then the git
// top level, then the current directory.
func TestFindRoot(t *testing.T) {
	base := realpath(t, t.TempDir())
	repo := filepath.Join(base, "repo")
	nested := filepath.Join(repo, "a", "b")
	os.MkdirAll(nested, 0o755)
	git(t, repo, "init", "-q")
	ws := filepath.Join(repo, "a")
	plain := filepath.Join(base, "plain", "x")
	os.MkdirAll(plain, 0o755)
	other := filepath.Join(base, "other")
	os.MkdirAll(other, 0o755)
	os.Symlink(nested, filepath.Join(base, "link-to-nested"))

	for _, tc := range []struct {
		name, cwd, flag string
		env             map[string]string
		mkCtxgit        string
		want            string
	}{
		{"git top level", nested, "", nil, "", repo},
		{"nearest .ctxgit wins over git", nested, "", nil, ws, ws},
		{"through a symlink, the real path", filepath.Join(base, "link-to-nested"), "", nil, "", repo},
		{"a .ctxgit above the repository does not capture it", nested, "", nil, base, repo},
		{"CTXGIT_ROOT", nested, "", map[string]string{"CTXGIT_ROOT": other}, "", other},
		{"--root beats CTXGIT_ROOT", nested, plain, map[string]string{"CTXGIT_ROOT": other}, "", plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mkCtxgit != "" {
				os.MkdirAll(filepath.Join(tc.mkCtxgit, ".ctxgit", "local"), 0o755)
				defer os.RemoveAll(filepath.Join(tc.mkCtxgit, ".ctxgit"))
				// Only machine-local files: not a workspace marker.
				if got, _ := workspace.FindRoot(testEnv(tc.cwd, tc.env), tc.flag); got == tc.mkCtxgit && tc.want == tc.mkCtxgit && tc.mkCtxgit != repo {
					t.Fatalf(".ctxgit/ holding only local/ marked a workspace")
				}
				os.WriteFile(filepath.Join(tc.mkCtxgit, ".ctxgit", "config.yaml"), []byte("version: 1\n"), 0o644)
			}
			got, err := workspace.FindRoot(testEnv(tc.cwd, tc.env), tc.flag)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("root = %s, want %s", got, tc.want)
			}
		})
	}
	// SPEC §2 rule 4: a plain directory is a workspace only for init and
	// ensure, and never the home directory.
	if _, err := workspace.FindRoot(testEnv(plain, nil), ""); spec.ExitCode(err) != spec.ExitNotFound {
		t.Fatalf("plain directory: %v, want not found", err)
	}
	if got, err := workspace.FindRootToCreate(testEnv(plain, nil), ""); err != nil || got != plain {
		t.Fatalf("plain directory to create: %s, %v", got, err)
	}
	if _, err := workspace.FindRootToCreate(testEnv(plain, map[string]string{"HOME": plain}), ""); spec.ExitCode(err) != spec.ExitNotFound {
		t.Fatalf("home directory to create: %v, want not found", err)
	}
	_, err := workspace.FindRoot(testEnv(base, nil), filepath.Join(base, "missing"))
	if spec.ExitCode(err) != spec.ExitUsage {
		t.Fatalf("missing --root: %v", err)
	}
}

func openWS(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(testEnv(dir, nil), dir)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// SPEC §13: a lock held by a live process makes others wait, then fail
// with a conflict; a dead holder's lock and a garbled old lock are taken
// over.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir)
	w.Config.Lock.Timeout = spec.Duration(200 * time.Millisecond)
	l, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Lock(); !errors.Is(err, spec.ErrConflict) || !strings.Contains(err.Error(), fmt.Sprintf("locked by pid %d", os.Getpid())) {
		t.Fatalf("second lock = %v", err)
	}
	l.Unlock()
	l2, err := w.Lock()
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()

	lockPath := filepath.Join(dir, ".ctxgit", "local", "lock")
	host, _ := os.Hostname()
	// A holder that is no longer running.
	data, _ := json.Marshal(map[string]any{"pid": wstest.ExitedPID(t), "host": host, "started": time.Now(), "token": "x"})
	os.WriteFile(lockPath, data, 0o644)
	l3, err := w.Lock()
	if err != nil {
		t.Fatalf("dead holder not taken over: %v", err)
	}
	l3.Unlock()

	// A live holder on this host past stale_after, with no heartbeat
	// since (a stopped process): never taken over (issue 13 item 2). This
	// process took it after it started.
	data, _ = json.Marshal(map[string]any{"pid": os.Getpid(), "host": host, "started": time.Now(), "token": "y"})
	os.WriteFile(lockPath, data, 0o644)
	os.Chtimes(lockPath, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	if _, err := w.Lock(); !errors.Is(err, spec.ErrConflict) || !strings.Contains(err.Error(), fmt.Sprintf("locked by pid %d", os.Getpid())) {
		t.Fatalf("a live holder on this host was taken over: %v", err)
	}

	// A lock taken an hour ago by a pid that a process started since
	// (this one) now has: the holder died and its pid was reused.
	if _, ok := proc.StartTime(os.Getpid()); ok {
		data, _ = json.Marshal(map[string]any{"pid": os.Getpid(), "host": host, "started": time.Now().Add(-time.Hour), "token": "y1"})
		os.WriteFile(lockPath, data, 0o644)
		l, err := w.Lock()
		if err != nil {
			t.Fatalf("a lock whose pid was reused was not taken over: %v", err)
		}
		l.Unlock()
	}

	// Another host's holder past stale_after cannot be asked: its age
	// decides, and it is taken over.
	data, _ = json.Marshal(map[string]any{"pid": os.Getppid(), "host": host + "-elsewhere", "started": time.Now().Add(-time.Hour), "token": "y2"})
	os.WriteFile(lockPath, data, 0o644)
	os.Chtimes(lockPath, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	l4, err := w.Lock()
	if err != nil {
		t.Fatalf("old holder on another host not taken over: %v", err)
	}
	l4.Unlock()

	// A holder on another host whose start is old but whose heartbeat is
	// fresh keeps the lock.
	data, _ = json.Marshal(map[string]any{"pid": os.Getppid(), "host": host + "-elsewhere", "started": time.Now().Add(-time.Hour), "token": "z"})
	os.WriteFile(lockPath, data, 0o644) // mtime now: a fresh heartbeat
	if _, err := w.Lock(); !errors.Is(err, spec.ErrConflict) {
		t.Fatalf("a holder with a fresh heartbeat was taken over: %v", err)
	}

	// Garbled (a crash between create and write), old enough.
	os.WriteFile(lockPath, nil, 0o644)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lockPath, old, old)
	l5, err := w.Lock()
	if err != nil {
		t.Fatalf("garbled lock not taken over: %v", err)
	}
	l5.Unlock()
}

// SPEC §13: checkpoints taken concurrently all land in the chain, in some
// order, with consecutive ids.
func TestConcurrentCheckpoints(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := openWS(t, dir)
			_, err := w.Checkpoint(workspace.CheckpointOptions{Message: fmt.Sprintf("writer %d", i)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	entries, err := openWS(t, dir).Log(spec.DefaultSession, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Fatalf("%d checkpoints in the chain, want %d", len(entries), n)
	}
	for i, e := range entries {
		if want := spec.FormatCheckpointID(n - i); e.CheckpointID != want {
			t.Fatalf("entry %d is %s, want %s", i, e.CheckpointID, want)
		}
	}
}

// SPEC §8: new decisions and files changed since the session began are
// computed from the commits.
func TestCheckpointDiffs(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir)
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("1"), 0o644)
	if _, err := w.Checkpoint(workspace.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := decide(w, "first decision", ""); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b"), []byte("2"), 0o644)
	r2, err := w.Checkpoint(workspace.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r2.Checkpoint.Resources.NewDecisions; len(got) != 1 || got[0] != "d_001" {
		t.Fatalf("new decisions = %v", got)
	}
	os.WriteFile(filepath.Join(dir, "c"), []byte("3"), 0o644)
	r3, err := w.Checkpoint(workspace.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := r3.Checkpoint.Resources
	if len(res.NewDecisions) != 0 {
		t.Fatalf("decisions already recorded counted as new: %v", res.NewDecisions)
	}
	if res.ChangedCount != 1 || res.FilesChanged[0].Path != "c" {
		t.Fatalf("changed since previous = %+v", res.FilesChanged)
	}
	// Since cp_001: b, c and the decisions log.
	var since []string
	for _, f := range res.SinceSession {
		since = append(since, f.Status+" "+f.Path)
	}
	if strings.Join(since, ",") != "M .ctxgit/decisions.md,A b,A c" {
		t.Fatalf("changed since the session began = %v", since)
	}
}

// SPEC §13: a holder keeps its lock fresh while it works, however long.
func TestLockHeartbeat(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t, dir)
	w.Config.Lock.StaleAfter = spec.Duration(200 * time.Millisecond)
	w.Config.Lock.Timeout = spec.Duration(600 * time.Millisecond)
	l, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	// Wait past stale_after: the heartbeat must have kept the lock fresh,
	// so a second locker times out instead of taking it over.
	if _, err := w.Lock(); !errors.Is(err, spec.ErrConflict) {
		t.Fatalf("a working holder's lock was taken over: %v", err)
	}
}

// decide appends a decision to the workspace's decisions log as
// `ctxgit decide` does (package taskstate), which these tests of the core
// do not import.
func decide(w *workspace.Workspace, what, why string) error {
	p := w.Path(w.Config.Paths.Decisions)
	src, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, markdown.AppendDecision(src, spec.Decision{What: what, Why: why, When: w.Now()}), 0o644)
}

// A private store made outside git is kept when a repository is later
// created around it; one the repository tracks (a clone of a repository
// that committed .ctxgit/store.git, issue 32) is never used: the
// workspace is the repository's, at its top level or in a subdirectory.
// Tracked in any case it is the clone's too: on macOS and Windows a
// committed .CTXGIT/Store.git is checked out where ctxgit finds
// .ctxgit/store.git. (On this file system, which tells case, the test
// places that one beside the store ctxgit finds.)
func TestPrivateStoreTrackedIsNotUsed(t *testing.T) {
	for _, sub := range []string{"", "pkg/a"} {
		for _, tracked := range []string{spec.PrivateStoreDir, ".CTXGIT/Store.git"} {
			t.Run("root="+sub+"/"+tracked, func(t *testing.T) {
				repo := realpath(t, t.TempDir())
				root := filepath.Join(repo, filepath.FromSlash(sub))
				os.MkdirAll(root, 0o755)
				w := openWS(t, root)
				if _, err := w.Store(); err != nil {
					t.Fatal(err)
				}
				git(t, repo, "init", "-q")
				if w := openWS(t, root); w.Repo != nil || w.CommittedStore {
					t.Fatalf("a store made outside git, repository made around it: Repo %v, CommittedStore %v; want the private store kept", w.Repo, w.CommittedStore)
				}
				head := filepath.Join(root, filepath.FromSlash(tracked), "HEAD")
				if tracked != spec.PrivateStoreDir {
					os.MkdirAll(filepath.Dir(head), 0o755)
					if err := os.WriteFile(head, []byte("ref: refs/heads/main\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				git(t, repo, "add", "-f", head)
				w = openWS(t, root)
				if w.Repo == nil || !w.CommittedStore {
					t.Fatalf("a tracked %s: Repo %v, CommittedStore %v; want the repository's store", tracked, w.Repo, w.CommittedStore)
				}
				if w.GitDirForUser() != w.Repo.CommonDir {
					t.Fatalf("git dir %s, want the repository's %s", w.GitDirForUser(), w.Repo.CommonDir)
				}
			})
		}
	}
}
