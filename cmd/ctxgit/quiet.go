package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// quietCommands are the commands that change files or refs: each takes
// -q/--quiet (docs/cli.md#description). A command path is its names joined by
// a space. TestQuietOnEveryWriter fails on a command that is neither
// here nor in its list of commands that only read or print.
var quietCommands = []string{
	"init", "checkpoint", "decide", "fail", "plan mark", "ensure", "resume",
	"restore", "summary", "state set", "state add", "state remove",
	"state step-done", "state action", "transcript repair", "prune",
	"doctor", "push", "fetch",
}

// addQuiet gives each command of quietCommands the -q/--quiet flag: on
// success it prints nothing on stdout; errors, warnings and notes still
// go to stderr, and the exit code is the same.
func (a *app) addQuiet(cmds []*cli.Command) {
	for _, path := range quietCommands {
		var c *cli.Command
		list := cmds
		for _, name := range strings.Fields(path) {
			if c = findCommand(list, name); c == nil {
				break
			}
			list = c.Subcommands
		}
		if c == nil {
			continue // TestQuietOnEveryWriter names it
		}
		c.Flags = append(append([]cli.Flag{}, c.Flags...), &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success (errors still go to stderr)"})
		action := c.Action
		c.Action = func(c *cli.Context) error {
			if c.Bool("quiet") {
				if c.Bool("json") {
					return spec.Usage("--quiet and --json cannot be combined: pick one")
				}
				a.out.w = io.Discard
			}
			return action(c)
		}
	}
}
