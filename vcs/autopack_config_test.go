package vcs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// gc.auto is read where git reads it: the repository's config wins, then
// ~/.gitconfig, then $XDG_CONFIG_HOME/git/config; $GIT_CONFIG_GLOBAL
// replaces both global files.
func TestAutoPackLimitReadsGCAutoAsGitDoes(t *testing.T) {
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("GIT_CONFIG_GLOBAL", "") // restored after the test
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	repo := newGitRepo(t)
	s, err := vcs.OpenGit(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	limit := func(what string, want int) {
		t.Helper()
		if got := s.AutoPackLimit(); got != want {
			t.Fatalf("%s: AutoPackLimit = %d, want %d", what, got, want)
		}
	}
	limit("no gc.auto anywhere", vcs.DefaultAutoPackLimit)

	os.MkdirAll(filepath.Join(xdg, "git"), 0o755)
	os.WriteFile(filepath.Join(xdg, "git", "config"), []byte("[gc]\n\tauto = 300\n"), 0o644)
	limit("gc.auto in the XDG config", 150)

	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[gc]\n\tauto = 200\n"), 0o644)
	limit("gc.auto in ~/.gitconfig over the XDG one", 100)

	gitCmd(t, repo, "config", "gc.auto", "0")
	limit("gc.auto 0 in the repository (git's own gc off)", vcs.DefaultAutoPackLimit)

	gitCmd(t, repo, "config", "--unset", "gc.auto")
	other := filepath.Join(home, "other.gitconfig")
	os.WriteFile(other, []byte("[gc]\n\tauto = 80\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", other)
	limit("GIT_CONFIG_GLOBAL replaces the global files", 40)
}
