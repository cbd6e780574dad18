package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/sharing"
)

func (a *app) fetchCommand() *cli.Command {
	return args("REMOTE?").command(&cli.Command{
		Name:  "fetch",
		Usage: "copy a remote's sessions (default origin) to refs/ctxgit/remotes/REMOTE/",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "prune", Usage: "drop fetched sessions the remote no longer has"},
			&cli.StringFlag{Name: "as", Usage: "name the remote under refs/ctxgit/remotes/ when REMOTE is a URL or path"},
			timeoutFlag,
		},
		Action: a.syncAction(sharing.Fetch, "fetched from", func(c *cli.Context, o *sharing.Options) { o.Prune = c.Bool("prune") }),
	})
}
