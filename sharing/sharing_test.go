package sharing

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

var fixedNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func testEnv(cwd string) workspace.Env {
	return workspace.Env{
		Now:    func() time.Time { return fixedNow },
		Getenv: func(string) string { return "" },
		Cwd:    cwd,
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	wstest.NeedGit(t)
	gitOut(t, dir, args...)
}

func realpath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	wstest.NeedGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func openAt(t *testing.T, root, cwd string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(testEnv(cwd), root)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func checkpoint(t *testing.T, w *workspace.Workspace, session, msg string) {
	t.Helper()
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: session, Trigger: spec.TriggerManual, Message: msg}); err != nil {
		t.Fatal(err)
	}
}

// docs/design.md, "Transports": which remote a command names, and its namespace.
func TestResolveRemoteNames(t *testing.T) {
	base := realpath(t, t.TempDir())
	repo := filepath.Join(base, "repo")
	os.MkdirAll(repo, 0o755)
	git(t, repo, "init", "-q")
	git(t, repo, "remote", "add", "origin", "../remote.git")
	git(t, repo, "config", "remote.origin.pushurl", "../push.git")
	git(t, repo, "remote", "add", "my/fork", "../fork.git")
	os.MkdirAll(filepath.Join(base, "remote.git"), 0o755)
	git(t, filepath.Join(base, "remote.git"), "init", "-q", "--bare")
	w := openAt(t, repo, repo)

	for _, tc := range []struct {
		name, remote, as string
		push             bool
		wantNS, wantURL  string
		wantCode         int
	}{
		{name: "default is origin", wantNS: "origin", wantURL: "../remote.git"},
		{name: "push uses pushurl", push: true, wantNS: "origin", wantURL: "../push.git"},
		{name: "a URL configured as a remote takes its name", remote: "../remote.git", wantNS: "origin", wantURL: "../remote.git"},
		{name: "--as names a URL", remote: "git://example.com/r.git", as: "team", wantNS: "team", wantURL: "git://example.com/r.git"},
		{name: "a URL is named after itself", remote: "git://example.com/team/r.git", wantNS: "r-"},
		{name: "a name git allows but a ref component does not", remote: "my/fork", wantCode: spec.ExitUsage},
		{name: "--as rescues it", remote: "my/fork", as: "fork", wantNS: "fork", wantURL: "../fork.git"},
		{name: "unknown name", remote: "upstream", wantCode: spec.ExitNotFound},
		{name: "bad --as", remote: "origin", as: "a..b", wantCode: spec.ExitUsage},
		{name: "unsupported scheme", remote: "ftp://x/y", wantCode: spec.ExitUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr, err := resolveRemote(w, tc.remote, tc.as, tc.push)
			if tc.wantCode != 0 {
				if spec.ExitCode(err) != tc.wantCode {
					t.Fatalf("err = %v (exit %d), want exit %d", err, spec.ExitCode(err), tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(rr.ns, tc.wantNS) || tc.wantURL != "" && rr.ep.String() != tc.wantURL {
				t.Fatalf("got %s (%s), want %s (%s)", rr.ns, rr.ep, tc.wantNS, tc.wantURL)
			}
		})
	}
	// Derived names differ for URLs that share a last element.
	a, errA := resolveRemote(w, "git://a.example/r.git", "", false)
	b, errB := resolveRemote(w, "git://b.example/r.git", "", false)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a.ns == b.ns || spec.ValidateSessionKey(a.ns) != nil {
		t.Fatalf("derived names %q and %q", a.ns, b.ns)
	}
}

// SPEC §7.1, docs/cli.md#push, docs/cli.md#fetch: a subdirectory workspace
// pushes its own namespace, and a clone's same subdirectory reads what it
// fetched as REMOTE/KEY; the top level's sessions arrive too but stay out of
// its list.
func TestShareNamespacedWorkspace(t *testing.T) {
	base := realpath(t, t.TempDir())
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", remote)
	a := filepath.Join(base, "a")
	os.MkdirAll(filepath.Join(a, "svc"), 0o755)
	os.WriteFile(filepath.Join(a, "svc", "main.go"), []byte("package main\n"), 0o644)
	git(t, a, "init", "-q")
	git(t, a, "remote", "add", "origin", remote)
	svc := openAt(t, filepath.Join(a, "svc"), a)
	top := openAt(t, a, a)
	checkpoint(t, svc, "default", "svc work")
	checkpoint(t, top, "default", "top work")
	checkpoint(t, top, "other", "top other")

	res, err := Push(svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refs) != 1 || res.Refs[0].Ref != "refs/ctxgit/ws/svc/sessions/default" || res.Refs[0].Status != RefNew {
		t.Fatalf("svc pushed %+v", res.Refs)
	}
	if res, err = Push(top, Options{All: true}); err != nil || len(res.Refs) != 2 {
		t.Fatalf("top pushed %+v, %v", res, err)
	}

	b := filepath.Join(base, "b")
	os.MkdirAll(filepath.Join(b, "svc"), 0o755)
	git(t, b, "init", "-q")
	git(t, b, "remote", "add", "origin", remote)
	bsvc := openAt(t, filepath.Join(b, "svc"), b)
	res, err = Fetch(bsvc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, r := range res.Refs {
		names[r.Session] = r.Local
	}
	want := map[string]string{
		"origin/default":          "refs/ctxgit/remotes/origin/ws/svc/sessions/default",
		"origin/sessions/default": "refs/ctxgit/remotes/origin/sessions/default",
		"origin/sessions/other":   "refs/ctxgit/remotes/origin/sessions/other",
	}
	for k, v := range want {
		if names[k] != v {
			t.Errorf("fetched %q at %q, want %q (all: %v)", k, names[k], v, names)
		}
	}
	rs, err := bsvc.RemoteSessions()
	if err != nil || len(rs) != 1 || rs[0].Name() != "origin/default" {
		t.Fatalf("svc's fetched sessions = %+v, %v", rs, err)
	}
	if _, err := bsvc.Resolve("origin/default:cp_001", "default"); spec.ExitCode(err) != spec.ExitUsage {
		t.Fatalf("Resolve, which recover uses, took a fetched session: %v", err)
	}
	r, err := bsvc.ResolveRead("origin/default:cp_001", "default")
	if err != nil || r.Checkpoint.Meta.CheckpointID != "cp_001" || r.Session != "origin/default" {
		t.Fatalf("Resolve = %+v, %v", r, err)
	}
	if entries, err := bsvc.Log("origin/default", 0); err != nil || len(entries) != 1 {
		t.Fatalf("Log(origin/default) = %v, %v", entries, err)
	}
	// No local session appeared, and the newest checkpoint is nobody's.
	if local, err := bsvc.Sessions(); err != nil || len(local) != 0 {
		t.Fatalf("local sessions after a fetch: %v, %v", local, err)
	}
	if newest, err := bsvc.Newest(); err != nil || newest != nil {
		t.Fatalf("Newest after a fetch = %+v, %v", newest, err)
	}
	btop := openAt(t, b, b)
	if rs, _ := btop.RemoteSessions(); len(rs) != 2 {
		t.Fatalf("top-level fetched sessions = %+v", rs)
	}
	gitOut(t, b, "fsck", "--strict", "--no-dangling")
}

// docs/cli.md#fetch: a fetched ref that another process holds is left alone and
// the fetch is a conflict; the others are updated.
func TestFetchRefHeldElsewhere(t *testing.T) {
	base := realpath(t, t.TempDir())
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", remote)
	a := filepath.Join(base, "a")
	os.MkdirAll(a, 0o755)
	os.WriteFile(filepath.Join(a, "f.txt"), []byte("f\n"), 0o644)
	wa := openAt(t, a, a)
	checkpoint(t, wa, "default", "one")
	checkpoint(t, wa, "second", "two")
	if _, err := Push(wa, Options{Remote: remote, As: "origin", All: true}); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(base, "b")
	os.MkdirAll(b, 0o755)
	wb := openAt(t, b, b)
	store := filepath.Join(b, ".ctxgit", "store.git")
	lock := filepath.Join(store, "refs/ctxgit/remotes/origin/sessions/default.lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	// The store must exist for the lock to sit in it.
	if _, err := vcs.InitPrivate(store); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lock, nil, 0o644)
	res, err := Fetch(wb, Options{Remote: remote, As: "origin"})
	if spec.ExitCode(err) != spec.ExitConflict || !errors.Is(err, spec.ErrConflict) {
		t.Fatalf("fetch with a held ref: %v", err)
	}
	st := map[string]string{}
	for _, r := range res.Refs {
		st[r.Session] = r.Status
	}
	if st["origin/default"] != RefRejected || st["origin/second"] != RefNew {
		t.Fatalf("statuses %v", st)
	}
	if _, err := os.Stat(filepath.Join(store, "refs/ctxgit/remotes/origin/sessions/default")); !os.IsNotExist(err) {
		t.Fatalf("the held ref was written: %v", err)
	}
}
