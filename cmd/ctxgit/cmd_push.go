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
			timeoutFlag,
		},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			res, err := sharing.Push(w, sharing.Options{Remote: c.Args().First(), As: c.String("as"), Force: c.Bool("force"), Messages: a.remoteMessages(), Timeout: c.Duration("timeout"), Ctx: c.Context})
			if res != nil {
				if perr := a.printSync(res, "pushed to", c.Bool("json")); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	})
}
