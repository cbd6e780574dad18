package vcs

import (
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
