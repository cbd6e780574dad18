package realhost_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The git hook managers `ctxgit init --git-hooks` chains or writes into
// (docs/design.md, "Git hooks under a hook manager"), installed as their
// users install them: husky and lefthook from the npm registry at the
// versions the testscripts copy their files from, pre-commit from PATH
// (Debian's package). In each, one commit made in a session runs the
// manager's prepare-commit-msg action AND adds ctxgit's trailer, and
// --uninstall leaves the manager's hook as the manager wrote it.
const (
	huskyVersion    = "9.1.7"
	lefthookVersion = "2.2.2"
)

// hookRepo is a scratch git repository with ctxgit on PATH and a session
// active (the one a Claude Code SessionStart hook records).
type hookRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newHookRepo(t *testing.T) *hookRepo {
	t.Helper()
	bin := ctxgitBinary(t)
	home := t.TempDir()
	r := &hookRepo{t: t, dir: t.TempDir(), env: append(os.Environ(),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"CTXGIT_HOOK_DETACH=0", "NO_COLOR=1", "npm_config_update_notifier=false")}
	r.run("git", "init", "-q", "-b", "main")
	r.write(".gitignore", "node_modules/\n")
	return r
}

func (r *hookRepo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *hookRepo) read(rel string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, rel))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func (r *hookRepo) run(name string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(lookPath(name, r.env), args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// startSession records a session as the workspace's current one.
func (r *hookRepo) startSession() {
	r.t.Helper()
	cmd := exec.Command(lookPath("ctxgit", r.env), "hook", "claude-code", "session-start")
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader(`{"session_id":"7f3c2a10-4b5e-4c1d-9e2f-0a1b2c3d4e5f","hook_event_name":"SessionStart","source":"startup"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("session-start: %v\n%s", err, out)
	}
}

// commit commits a change and returns the commit's message.
func (r *hookRepo) commit(subject string) string {
	r.t.Helper()
	r.write("work.txt", subject+"\n")
	r.run("git", "add", "work.txt")
	r.run("git", "commit", "-q", "-m", subject)
	return r.run("git", "log", "-1", "--format=%B")
}

// wantBoth fails unless msg holds the manager's marker and the trailer.
func wantBoth(t *testing.T, msg, marker string) {
	t.Helper()
	if !strings.Contains(msg, marker+"\n") || !strings.Contains(msg, "\nCtxgit-Checkpoint: 7f3c2a10/cp_") {
		t.Fatalf("commit message lacks %q or the trailer:\n%s", marker, msg)
	}
}

func TestHuskyKeepsUserHookAndTrailer(t *testing.T) {
	requireTier(t)
	r := newHookRepo(t)
	r.write("package.json", `{"name":"scratch","version":"1.0.0","private":true,"scripts":{"prepare":"husky"}}`+"\n")
	r.run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "husky@"+huskyVersion)
	r.run("npm", "run", "--silent", "prepare") // husky's setup, as `npx husky init` runs it
	r.write(".husky/prepare-commit-msg", "echo husky-user-hook >> \"$1\"\n")
	user := r.read(".husky/prepare-commit-msg")
	if got := strings.TrimSpace(r.run("git", "config", "core.hooksPath")); got != ".husky/_" {
		t.Fatalf("husky set core.hooksPath to %q", got)
	}
	stub := r.read(".husky/_/prepare-commit-msg")
	if out := r.run("ctxgit", "init", "--git-hooks"); !strings.Contains(out, "husky v9 runs it") {
		t.Fatalf("init --git-hooks:\n%s", out)
	}
	r.startSession()
	wantBoth(t, r.commit("first"), "husky-user-hook")
	// npm install runs husky again (the prepare script), which rewrites
	// .husky/_: a stub removed here is back after it.
	if err := os.Remove(filepath.Join(r.dir, ".husky/_/prepare-commit-msg")); err != nil {
		t.Fatal(err)
	}
	r.run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
	if got := r.read(".husky/_/prepare-commit-msg"); got != stub {
		t.Fatalf("npm install did not rewrite husky's stub: %q", got)
	}
	wantBoth(t, r.commit("after npm install"), "husky-user-hook")
	r.run("ctxgit", "init", "--git-hooks", "--uninstall")
	if got := r.read(".husky/prepare-commit-msg"); got != user {
		t.Fatalf("after --uninstall .husky/prepare-commit-msg =\n%s\nwant\n%s", got, user)
	}
	if got := r.read(".husky/_/prepare-commit-msg"); got != stub {
		t.Fatalf("husky's stub changed:\n%s", got)
	}
}

func TestLefthookKeepsItsCommandAndTrailer(t *testing.T) {
	requireTier(t)
	r := newHookRepo(t)
	r.write("package.json", `{"name":"scratch","version":"1.0.0","private":true}`+"\n")
	r.write("lefthook.yml", "prepare-commit-msg:\n  commands:\n    marker:\n      run: echo lefthook-ran >> \"{1}\"\n")
	r.run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "lefthook@"+lefthookVersion)
	r.run(filepath.Join(r.dir, "node_modules", ".bin", "lefthook"), "install")
	hook := r.read(".git/hooks/prepare-commit-msg")
	r.run("ctxgit", "init", "--git-hooks")
	r.startSession()
	wantBoth(t, r.commit("first"), "lefthook-ran")
	// lefthook syncs its hooks over ctxgit's when its config changes (on
	// its next run, or `lefthook install`, which its npm package runs on
	// every install): it renames ctxgit's hook to .old, which it does not
	// run. doctor says so, and init chains lefthook's new hook again.
	r.write("lefthook.yml", r.read("lefthook.yml")+"    marker2:\n      run: echo lefthook2-ran >> \"{1}\"\n")
	r.run(filepath.Join(r.dir, "node_modules", ".bin", "lefthook"), "install")
	if msg := r.commit("after a sync"); strings.Contains(msg, "Ctxgit-Checkpoint") || !strings.Contains(msg, "lefthook2-ran") {
		t.Fatalf("lefthook %s: after its sync, want lefthook's new command and no trailer (ctxgit's hook moved to .old):\n%s", lefthookVersion, msg)
	}
	if out := r.run("ctxgit", "doctor"); !strings.Contains(out, "is no longer ctxgit's") {
		t.Fatalf("doctor after lefthook's sync:\n%s", out)
	}
	r.run("ctxgit", "init", "--git-hooks")
	msg := r.commit("chained again")
	wantBoth(t, msg, "lefthook2-ran")
	r.run("ctxgit", "init", "--git-hooks", "--uninstall")
	if got := r.read(".git/hooks/prepare-commit-msg"); got != hook {
		t.Fatalf("after --uninstall lefthook's hook =\n%s\nwant\n%s", got, hook)
	}
}

func TestPreCommitKeepsItsHookAndTrailer(t *testing.T) {
	requireTier(t)
	if _, err := exec.LookPath("pre-commit"); err != nil {
		// The tier was asked for: a missing tool is a failure, not a
		// skip (.ci/run installs it).
		t.Fatal("pre-commit is not on PATH (Debian: apt-get install pre-commit)")
	}
	r := newHookRepo(t)
	r.write(".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: marker\n    name: marker\n    entry: sh -c 'echo pre-commit-ran >> \"$1\"' --\n    language: system\n    stages: [prepare-commit-msg]\n")
	r.run("git", "add", ".pre-commit-config.yaml")
	r.run("pre-commit", "install", "--hook-type", "prepare-commit-msg")
	hook := r.read(".git/hooks/prepare-commit-msg")
	r.write(".git/hooks/prepare-commit-msg.legacy", "#!/bin/sh\necho legacy-ran >> \"$1\"\n")
	if err := os.Chmod(filepath.Join(r.dir, ".git/hooks/prepare-commit-msg.legacy"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.run("ctxgit", "init", "--git-hooks")
	r.startSession()
	msg := r.commit("first")
	wantBoth(t, msg, "pre-commit-ran")
	wantBoth(t, msg, "legacy-ran")
	r.run("ctxgit", "init", "--git-hooks", "--uninstall")
	if got := r.read(".git/hooks/prepare-commit-msg"); got != hook {
		t.Fatalf("after --uninstall pre-commit's hook =\n%s\nwant\n%s", got, hook)
	}
}
