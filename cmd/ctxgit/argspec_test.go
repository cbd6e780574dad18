package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestArgSpec(t *testing.T) {
	for _, tc := range []struct {
		spec     argSpec
		usage    string
		min, max int
	}{
		{args(), "", 0, 0},
		{args("SHELL"), "SHELL", 1, 1},
		{args("STEP", "STATUS"), "STEP STATUS", 2, 2},
		{args("CHECKPOINT?"), "[CHECKPOINT]", 0, 1},
		{args("FROM?", "TO?"), "[FROM [TO]]", 0, 2},
		{args("CHECKPOINT", "-- PATHS..."), "CHECKPOINT [-- PATHS...]", 1, -1},
	} {
		min, max := tc.spec.bounds()
		if got := tc.spec.usage(); got != tc.usage || min != tc.min || max != tc.max {
			t.Errorf("%q: usage %q, bounds %d..%d; want %q, %d..%d", tc.spec.names, got, min, max, tc.usage, tc.min, tc.max)
		}
	}
}

// Every command that takes positional arguments refuses one too many,
// before it opens or changes anything, with the usage exit code (for a
// command with subcommands, as an unknown subcommand). The
// commands a host runs fail open instead, and `ctxgit git` passes its
// arguments to git.
func TestEveryCommandChecksItsArguments(t *testing.T) {
	t.Chdir(t.TempDir())
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, path...), c.Name)
			walk(p, c.Subcommands)
			switch {
			case c.Action == nil, c.Name == "hook", c.Name == "statusline", c.Name == "git", strings.Contains(c.ArgsUsage, "..."),
				c.Name == "help",              // its first word is a command: an unknown one is "unknown command" (help_groups.txtar)
				c.Name == completeCommandName: // takes the words typed, any number, and never fails
				continue
			}
			n := strings.Count(c.ArgsUsage, " ") + 1
			if c.ArgsUsage == "" {
				n = 0
			}
			argv := []string{"ctxgit"}
			argv = append(argv, p...)
			for i := 0; i <= n; i++ {
				argv = append(argv, fmt.Sprintf("extra%d", i))
			}
			var stderr bytes.Buffer
			code := run(argv, strings.NewReader(""), &bytes.Buffer{}, &stderr)
			// A subcommand is named with its parent, and so is the help
			// it points to; a parent's extra word is taken for a mistyped
			// subcommand.
			name := strings.Join(p, " ")
			want, help := fmt.Sprintf("ctxgit: %s takes ", name), fmt.Sprintf("(see ctxgit %s --help)\n", name)
			if len(c.Subcommands) > 0 {
				want, help = `ctxgit: unknown command "extra0"`, fmt.Sprintf("(see ctxgit help %s)\n", name)
			}
			if code != 2 || !strings.HasPrefix(stderr.String(), want) || !strings.HasSuffix(stderr.String(), help) {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q…%q", strings.Join(argv, " "), code, stderr.String(), want, help)
			}
		}
	}
	walk(nil, a.cli.Commands)
}

// A command's arguments, declared once, show in its help and in
// docs/cli.md alike.
func TestArgumentsInHelpAndReference(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	ref := a.cliReference()
	for _, tc := range []struct{ argv, line string }{
		{"recover", "ctxgit recover [command options] [CHECKPOINT]"},
		{"restore", "ctxgit restore [command options] CHECKPOINT [-- PATHS...]"},
		{"plan mark", "ctxgit plan mark [command options] STEP STATUS"},
		{"log", "ctxgit log [command options]"},
	} {
		var stdout bytes.Buffer
		argv := append(append([]string{"ctxgit"}, strings.Fields(tc.argv)...), "--help")
		if code := run(argv, strings.NewReader(""), &stdout, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%s: exit %d", strings.Join(argv, " "), code)
		}
		if !strings.Contains(stdout.String(), "\n   "+tc.line+"\n") {
			t.Errorf("%s --help has no line %q:\n%s", tc.argv, tc.line, stdout.String())
		}
		if !strings.Contains(ref, "\n```\n"+tc.line+"\n```\n") {
			t.Errorf("docs/cli.md has no line %q", tc.line)
		}
	}
}
