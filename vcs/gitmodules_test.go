package vcs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

func TestCheckGitmodules(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		ok         bool
	}{
		{"plain", "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n", true},
		{"relative url", "[submodule \"lib\"]\n\turl = ../lib.git\n", true},
		{"url as an option", "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwn\n", false},
		{"url dash", "[submodule \"x\"]\n\turl = -u./evil\n", false},
		{"path as an option", "[submodule \"x\"]\n\tpath = --x\n\turl = ../x\n", false},
		{"name with ..", "[submodule \"../../modules/evil\"]\n\tpath = a\n\turl = ../a\n", false},
		{"update command", "[submodule \"x\"]\n\tupdate = !rm -rf /\n", false},
		{"encoded newline", "[submodule \"x\"]\n\turl = https://a%0ab@host/x\n", false},
		{"not a config", "this is not [ a config", true},
		{"other sections", "[core]\n\turl = -x\n", true},
	} {
		err := CheckGitmodules([]byte(tc.data))
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	for _, n := range []string{".gitmodules", ".GITMODULES", ".GitModules", "GITMOD~1"} {
		if !IsGitmodulesName(n) {
			t.Errorf("IsGitmodulesName(%q) = false", n)
		}
	}
	if IsGitmodulesName(".gitmodules.bak") {
		t.Error(".gitmodules.bak taken for .gitmodules")
	}
}

// Every case CheckGitmodules refuses, git fsck --strict refuses too; every
// case it passes, git passes.
func TestCheckGitmodulesAgreesWithGit(t *testing.T) {
	wstest.NeedGit(t)
	for _, data := range []string{
		"[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n",
		"[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwn\n",
		"[submodule \"x\"]\n\tpath = --x\n\turl = ../x\n",
		"[submodule \"../../modules/evil\"]\n\tpath = a\n\turl = ../a\n",
	} {
		dir := t.TempDir()
		git := func(stdin string, args ...string) (string, error) {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
				"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
			cmd.Stdin = strings.NewReader(stdin)
			out, err := cmd.Output()
			return strings.TrimSpace(string(out)), err
		}
		mustGit := func(stdin string, args ...string) string {
			out, err := git(stdin, args...)
			if err != nil {
				t.Fatalf("git %v: %v", args, err)
			}
			return out
		}
		mustGit("", "init", "-q")
		os.WriteFile(filepath.Join(dir, ".gitmodules"), []byte(data), 0o644)
		blob := mustGit("", "hash-object", "-w", ".gitmodules")
		tree := mustGit("100644 blob "+blob+"\t.gitmodules\n", "mktree")
		commit := mustGit("", "commit-tree", tree, "-m", "m")
		mustGit("", "update-ref", "refs/heads/t", commit)
		_, fsckErr := git("", "fsck", "--strict", "--no-progress", "--no-dangling")
		if ours := CheckGitmodules([]byte(data)); (ours == nil) != (fsckErr == nil) {
			t.Errorf("%q: ours %v, git fsck %v", data, ours, fsckErr)
		}
	}
}
