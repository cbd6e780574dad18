package main

import (
	"fmt"

	"github.com/ctxgit/ctxgit/taskstate"

	"github.com/urfave/cli/v2"
)

func (a *app) summaryCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "summary",
		Usage: "write the task summary (timestamped and latest-summary.md) from the task state, plan and logs",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag()},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			p, err := taskstate.WriteSummary(w, sess)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(summaryResult{Path: p})
			}
			fmt.Fprintf(a.stdout, "wrote %s\n", p)
			return nil
		},
	})
}

// summaryResult is `ctxgit summary --json`.
type summaryResult struct {
	Path string `json:"path"`
}
