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
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			res, err := sharing.Fetch(w, sharing.Options{Remote: c.Args().First(), As: c.String("as"), Prune: c.Bool("prune"), Messages: a.remoteMessages(), Timeout: c.Duration("timeout"), Ctx: c.Context})
			if res != nil {
				if perr := a.printSync(res, "fetched from", c.Bool("json")); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	})
}
