package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md from the command definitions")

const cliReferencePath = "../../docs/cli.md"

// TestCLIReference fails when docs/cli.md drifts from the commands.
func TestCLIReference(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	want := a.cliReference()
	if *update {
		if err := os.WriteFile(cliReferencePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(cliReferencePath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: go test ./cmd/ctxgit -run TestCLIReference -update", filepath.Clean(cliReferencePath))
	}
	for _, c := range a.cli.Commands {
		if !c.Hidden && c.Name != "help" && !strings.Contains(want, "## "+c.Name) {
			t.Errorf("docs/cli.md has no section for %s", c.Name)
		}
	}
}

func TestEveryCommandHasExamples(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range a.cli.Commands {
		if !strings.Contains(c.Description, "Examples:\n  ") || !strings.Contains(c.Description, "ctxgit "+c.Name) {
			t.Errorf("%s: help has no examples (add them to commandExamples)", c.Name)
		}
	}
}

func TestNearestCommand(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, tc := range []struct{ typed, want string }{
		{"chekpoint", "checkpoint"},
		{"stauts", "status"},
		{"recovr", "recover"},
		{"lgo", "log"},
		{"rep", "report"}, // a prefix of one top-level command
		{"xyzzy", ""},
		{"a", ""},
	} {
		if got := nearestCommand(a.cli.Commands, tc.typed); got != tc.want {
			t.Errorf("nearestCommand(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"log", "log", 0}, {"lgo", "log", 1}, {"stauts", "status", 1},
		{"chekpoint", "checkpoint", 1}, {"kitten", "sitting", 3}, {"", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestHoistGlobalFlags(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, tc := range []struct{ in, want string }{
		{"ctxgit --root /w log", "ctxgit log --root /w"},
		{"ctxgit --root=/w --json log -s x", "ctxgit log --root=/w --json -s x"},
		{"ctxgit -s k --json state get goal", "ctxgit state get -s k --json goal"},
		{"ctxgit log --root /w", "ctxgit log --root /w"},
		{"ctxgit --version", "ctxgit --version"},
		{"ctxgit --root /w", "ctxgit --root /w"},
		{"ctxgit --root /w nosuch", "ctxgit --root /w nosuch"},
	} {
		got := strings.Join(hoistGlobalFlags(a.cli.Commands, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("hoistGlobalFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBuildStampString(t *testing.T) {
	for _, tc := range []struct {
		b    buildStamp
		want string
	}{
		{buildStamp{Version: "1.2.0"}, "ctxgit 1.2.0 (spec ctxgit/v1)"},
		{buildStamp{Version: "1.2.0", Commit: "0123456789abcdef0123", Date: "2026-11-24T05:00:00Z"},
			"ctxgit 1.2.0 (0123456789ab, 2026-11-24T05:00:00Z) (spec ctxgit/v1)"},
		{buildStamp{Version: "0.1.0-dev", Commit: "abc", Modified: true}, "ctxgit 0.1.0-dev (abc+dirty) (spec ctxgit/v1)"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
	if b := buildInfo(); b.Version == "" {
		t.Error("buildInfo left the version empty")
	}
	names := []string{}
	for _, r := range exitCodeRows {
		names = append(names, r.name)
	}
	if !slices.Contains(names, "git not found") {
		t.Error("exit-code table lost a row")
	}
}

// Every help text belongs to a command, so a renamed command cannot leave
// its text behind unseen.
func TestHelpTextsBelongToCommands(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	entries, err := helpTexts.ReadDir("help")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "ctxgit.md" {
			continue // the manual's DESCRIPTION: ctxgit with no command
		}
		path := strings.Split(strings.TrimSuffix(e.Name(), ".md"), "_")
		cmds := a.cli.Commands
		var c *cli.Command
		for _, name := range path {
			if c = findCommand(cmds, name); c == nil {
				break
			}
			cmds = c.Subcommands
		}
		if c == nil {
			t.Errorf("help/%s: no command %q", e.Name(), strings.Join(path, " "))
		}
	}
}

// Every flag's help line, in every command, says its default once and
// names its environment variable once: urfave/cli appends "(default: …)"
// and "[$VAR]" to what the usage text may already say.
func TestNoDoubledDefaults(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	var walk func(path string, cmds []*cli.Command)
	check := func(path string, flags []cli.Flag) {
		for _, f := range flags {
			line := cli.FlagStringer(f)
			if n := strings.Count(line, "(default"); n > 1 {
				t.Errorf("%s: %q says its default %d times", path, line, n)
			}
			for _, v := range []string{"CTXGIT_SESSION", "CTXGIT_ROOT", "CTXGIT_PRESSURE"} {
				if n := strings.Count(line, v); n > 1 {
					t.Errorf("%s: %q names %s %d times", path, line, v, n)
				}
			}
		}
	}
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			check(path+" "+c.Name, c.Flags)
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	check("ctxgit", a.cli.Flags)
	walk("ctxgit", a.cli.Commands)
}
