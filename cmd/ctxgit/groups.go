package main

import (
	"github.com/urfave/cli/v2"
)

// Help groups (docs/cli.md#description): `ctxgit help` lists the commands a
// person types first, then the ones hosts and agents call. urfave/cli
// sorts its categories by name, so the names are chosen to sort in that
// order.
const (
	groupPeople   = "everyday commands"
	groupPlumbing = "host and agent plumbing"
)

// plumbing are the commands a host's hooks or an agent's loop run; every
// other visible command is a person's.
var plumbing = map[string]bool{
	"ensure": true, "status": true, "resume": true, "summary": true, "bundle": true,
	"state": true, "gauge": true, "hook": true, "statusline": true, "transcript": true,
}

// groupCommands sets each top-level command's help group.
func groupCommands(cmds []*cli.Command) {
	for _, c := range cmds {
		c.Category = groupPeople
		if plumbing[c.Name] {
			c.Category = groupPlumbing
		}
	}
}

// helpCommand is urfave/cli's help command in the people's group: left to
// urfave/cli it would have no group and be listed above both.
func helpCommand() *cli.Command {
	return args("COMMAND?", "SUBCOMMAND?").command(&cli.Command{
		Name:    "help",
		Aliases: []string{"h"},
		Usage:   "show the commands, or one command's help",
		Action: func(c *cli.Context) error {
			parent := c
			if l := c.Lineage(); len(l) > 1 {
				parent = l[1]
			}
			if c.Args().Present() {
				return cli.ShowCommandHelp(parent, c.Args().First())
			}
			return cli.ShowAppHelp(parent)
		},
	})
}
