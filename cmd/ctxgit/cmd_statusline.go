package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/host/hooks"
)

// statuslineCommand is Claude Code's status line.
func (a *app) statuslineCommand() *cli.Command {
	return &cli.Command{
		Name:  "statusline",
		Usage: "Claude Code's status line: the context gauge, the nudge marker, automatic checkpoints",
		Flags: []cli.Flag{rootFlag},
		Action: func(c *cli.Context) error {
			return a.failOpen(c, "claude-code", "statusline", hooks.Statusline)
		},
	}
}
