package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// weakConfig empties the secret patterns, keeps one checkpoint, waits a
// day for the lock and moves the plan (SPEC §11.1), and sets a recovery
// budget, which is not weaker.
const weakConfig = "version: 1\nsnapshot:\n  secret_excludes: []\nretention:\n  keep: 1\nlock:\n  timeout: 24h\npaths:\n  plan: PLAN.md\nrecovery:\n  budget_chars: 3000\n"

// SPEC §11.1: a config's weaker values keep their defaults until git
// config accepts their token, in the repository's config or the user's
// global one; no file in the workspace accepts them, whatever it is
// called, and a token for other values does not.
func TestConfigTrust(t *testing.T) {
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	accept := func(token string) string {
		return "[ctxgit]\n\tacceptConfig = 0000000000000000\n\tacceptConfig = " + token + "\n"
	}
	defaults := spec.DefaultConfig()

	repo := realpath(t, t.TempDir())
	git(t, repo, "init", "-q")
	plain := realpath(t, t.TempDir())
	for _, root := range []string{repo, plain} {
		os.MkdirAll(filepath.Join(root, ".ctxgit", "local"), 0o755)
		if err := os.WriteFile(filepath.Join(root, spec.ConfigPath), []byte(weakConfig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func(root string) *workspace.Workspace {
		t.Helper()
		w, err := workspace.Open(testEnv(root, nil), root)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := open(repo)
	token := w.Trust.Token
	if len(w.Trust.Weakenings) != 4 || w.Trust.Accepted || len(token) != 16 {
		t.Fatalf("trust %+v", w.Trust)
	}
	notApplied := func(w *workspace.Workspace, where string) {
		t.Helper()
		c := w.Config
		if len(c.Snapshot.SecretExcludes) != len(spec.DefaultSecretExcludes) || c.Retention.Keep != defaults.Retention.Keep ||
			c.Lock.Timeout != defaults.Lock.Timeout || c.Paths.Plan != defaults.Paths.Plan {
			t.Errorf("%s: a weaker value applied: %+v", where, c)
		}
		if c.Recovery.BudgetChars != 3000 {
			t.Errorf("%s: the budget, not weaker, did not apply", where)
		}
		if w.Trust.Accepted || len(w.ConfigNotice()) != 6 {
			t.Errorf("%s: accepted %v, notice %q", where, w.Trust.Accepted, w.ConfigNotice())
		}
	}
	applied := func(w *workspace.Workspace, where string) {
		t.Helper()
		c := w.Config
		if len(c.Snapshot.SecretExcludes) != 0 || c.Retention.Keep != 1 || time.Duration(c.Lock.Timeout) != 24*time.Hour || c.Paths.Plan != "PLAN.md" {
			t.Errorf("%s: the accepted values did not apply: %+v", where, c)
		}
		if !w.Trust.Accepted || w.ConfigNotice() != nil {
			t.Errorf("%s: accepted %v, notice %q", where, w.Trust.Accepted, w.ConfigNotice())
		}
	}
	notApplied(w, "nothing accepted")
	if got := w.AcceptCommand(); got != "git config --add ctxgit.acceptConfig "+token {
		t.Errorf("accept command %q", got)
	}

	// What a repository can commit: git config files anywhere in the
	// workspace, .ctxgit/local/ included (git add -f).
	for _, p := range []string{".gitconfig", ".ctxgit/local/config", ".ctxgit/local/gitconfig", ".ctxgit/config", "config"} {
		if err := os.WriteFile(filepath.Join(repo, p), []byte(accept(token)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notApplied(open(repo), "planted in the workspace")

	// The repository's own config accepts; a token of other values
	// does not.
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(accept("0123456789abcdef")), 0o644); err != nil {
		t.Fatal(err)
	}
	notApplied(open(repo), "another token")
	gitConfig, _ := os.ReadFile(filepath.Join(repo, ".git", "config"))
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), append(gitConfig, accept(token)...), 0o644); err != nil {
		t.Fatal(err)
	}
	applied(open(repo), "the repository's config")

	// Outside git: the global config, which AcceptCommand names.
	p := open(plain)
	notApplied(p, "a plain directory")
	if got := p.AcceptCommand(); got != "git config --global --add ctxgit.acceptConfig "+token {
		t.Errorf("accept command outside git %q", got)
	}
	if err := os.WriteFile(global, []byte(accept(token)), 0o644); err != nil {
		t.Fatal(err)
	}
	applied(open(plain), "the global config")

	// Told once: MarkConfigTold silences the notice of these values.
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p = open(plain)
	p.MarkConfigTold()
	if n := open(plain).ConfigNotice(); n != nil {
		t.Errorf("told again: %q", n)
	}
}
