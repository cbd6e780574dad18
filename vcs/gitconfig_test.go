package vcs

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// SPEC §9.2, §7.1: the parts of git's config format ctxgit reads.
func TestParseGitConfig(t *testing.T) {
	src := `# a comment
[core]
	repositoryformatversion = 1
	ExcludesFile = "~/my ignore"  ; trailing comment
	bare
[extensions]
	objectFormat = sha1
[remote "origin"]
	url = https://example.com/x.git
[alias]
	lg = log --format=\"%h %s\" \
--graph
`
	cfg, _, err := parseGitConfig([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"core.repositoryformatversion": "1",
		"core.excludesfile":            "~/my ignore",
		"CORE.ExcludesFile":            "~/my ignore",
		"core.bare":                    "true",
		"extensions.objectformat":      "sha1",
		"remote.origin.url":            "https://example.com/x.git",
		"alias.lg":                     `log --format="%h %s" --graph`,
	} {
		if got := cfg.get(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	for _, bad := range []string{"[core\nx = 1\n", "x = 1\n", "[core]\nx = \"open\n", "[core]\nx = \\q\n"} {
		if _, line, err := parseGitConfig([]byte(bad)); err == nil || line == 0 {
			t.Errorf("%q: error %v at line %d", bad, err, line)
		}
	}
}

// FuzzParseGitConfig: any bytes parse or fail cleanly.
func FuzzParseGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\tx = \"a\\\"b\" # c\n"))
	f.Add([]byte(strings.Repeat("[a \"b\"]\nk\\\n", 3)))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseGitConfig(data)
	})
}

// GitConfigAll lists a multi-valued key as `git config --get-all` does:
// the global files first, then the repository's, every value in order,
// the key's case ignored; a file that does not parse adds nothing.
func TestGitConfigAll(t *testing.T) {
	common := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	write := func(path, data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(common, "config"), "[core]\n\tbare = false\n[ctxgit]\n\tacceptConfig = r1\n[other]\n\tacceptConfig = no\n[CTXGIT]\n\tACCEPTCONFIG = r2\n")
	write(global, "[ctxgit]\n\tacceptconfig = g1\n")
	if got := GitConfigAll(common, "ctxgit.acceptConfig"); !slices.Equal(got, []string{"g1", "r1", "r2"}) {
		t.Errorf("values %q", got)
	}
	if got := GitConfigAll("", "ctxgit.acceptConfig"); !slices.Equal(got, []string{"g1"}) {
		t.Errorf("without a repository: %q", got)
	}
	write(global, "[ctxgit\n\tacceptconfig = g1\n")
	if got := GitConfigAll(common, "ctxgit.acceptConfig"); !slices.Equal(got, []string{"r1", "r2"}) {
		t.Errorf("with a global file that does not parse: %q", got)
	}
}

// The global config is ~/.gitconfig in HOME, as git finds it, on Windows
// too, where HOME (set by Git Bash, or by the user) wins over USERPROFILE
// and the system's home directory is only the fallback.
func TestGlobalConfigInHOME(t *testing.T) {
	home, profile := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", profile)
	t.Setenv("XDG_CONFIG_HOME", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[ctxgit]\n\tacceptConfig = 0123456789abcdef\n[core]\n\texcludesFile = ~/ignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(profile, ".gitconfig"), []byte("[ctxgit]\n\tacceptConfig = ffffffffffffffff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := lookupConfig("", "ctxgit.acceptconfig"); got != "0123456789abcdef" {
		t.Errorf("ctxgit.acceptConfig = %q, want HOME's", got)
	}
	if got, want := ExcludesFile(""), filepath.Join(home, "ignore"); got != want {
		t.Errorf("ExcludesFile = %q, want %q", got, want)
	}
	// Without HOME, the system's home: USERPROFILE on Windows.
	if runtime.GOOS == "windows" {
		t.Setenv("HOME", "")
		if got := lookupConfig("", "ctxgit.acceptconfig"); got != "ffffffffffffffff" {
			t.Errorf("without HOME: ctxgit.acceptConfig = %q, want USERPROFILE's", got)
		}
	}
}
