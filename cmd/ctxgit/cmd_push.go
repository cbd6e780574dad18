package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/sharing"
)

func (a *app) pushCommand() *cli.Command {
	// Checkpoints leave the machine only where the user says: no default
	// remote.
	return args("REMOTE").orSay("push needs a remote: ctxgit push REMOTE (e.g. origin, or a URL or path)").command(&cli.Command{
		Name:  "push",
		Usage: "send this workspace's sessions to REMOTE (named explicitly: nothing is pushed by default), as fast-forwards",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace remote sessions that are not ancestors of the local ones"},
			&cli.StringFlag{Name: "as", Usage: "name the remote under refs/ctxgit/remotes/ when REMOTE is a URL or path"},
			&cli.StringSliceFlag{Name: "session", Aliases: []string{"s"}, Usage: "send this session (key or unique prefix; repeatable)", DefaultText: "the current session: " + sessionFallback},
			&cli.BoolFlag{Name: "all", Usage: "send every session of the workspace"},
			timeoutFlag,
		},
		Action: a.syncAction(sharing.Push, "pushed to", func(c *cli.Context, o *sharing.Options) {
			o.Force, o.Sessions, o.All = c.Bool("force"), c.StringSlice("session"), c.Bool("all")
			o.FirstPush = a.printFirstPush
		}),
	})
}
