package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// onlyRead are the commands that change no file or ref of the user's
// (or whose output is the point: a host's protocol, a script, a block to
// inject; mcp, whose stdout is the protocol), so they take no -q. A new command is in this list or in
// quietCommands, or this test fails.
var onlyRead = []string{
	"log", "show", "diff", "report", "why", "plan", "recover", "status",
	"bundle", "state", "state get", "gauge", "hook", "statusline", "transcript show",
	"git", "demo", "git-hook", "mcp", "version", "completion", "man", "help",
	completeCommandName,
}

// docs/cli.md#description: every command that writes takes -q/--quiet, and
// quiet.txtar runs each one with it and finds stdout empty.
func TestQuietOnEveryWriter(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	script, err := os.ReadFile("../../testdata/scripts/quiet.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, path...), c.Name)
			walk(p, c.Subcommands)
			if c.Action == nil {
				continue
			}
			name := strings.Join(p, " ")
			quiet := slices.Contains(quietCommands, name)
			read := slices.Contains(onlyRead, name)
			hasFlag := slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "quiet") && slices.Contains(f.Names(), "q") })
			switch {
			case quiet && read:
				t.Errorf("%s is both a writer and a reader", name)
			case !quiet && !read:
				t.Errorf("%s: a new command: add it to quietCommands (it writes) or onlyRead", name)
			case quiet && !hasFlag:
				t.Errorf("%s: no -q/--quiet flag", name)
			case read && hasFlag:
				t.Errorf("%s: only reads, but has --quiet", name)
			case quiet && !bytes.Contains(script, []byte("ctxgit "+name+" -q")):
				t.Errorf("%s: quiet.txtar does not run it with -q", name)
			}
		}
	}
	walk(nil, a.cli.Commands)
	seen := map[string]bool{}
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, path...), c.Name)
			seen[strings.Join(p, " ")] = true
			walk(p, c.Subcommands)
		}
	}
	walk(nil, a.cli.Commands)
	for _, name := range append(slices.Clone(quietCommands), onlyRead...) {
		if !seen[name] {
			t.Errorf("%q is no command", name)
		}
	}
}
