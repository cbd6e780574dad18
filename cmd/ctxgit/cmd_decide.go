package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) decideCommand() *cli.Command {
	return args("DECISION").command(&cli.Command{
		Name:  "decide",
		Usage: "record a decision in the decisions log",
		Flags: []cli.Flag{rootFlag, jsonFlag, &cli.StringFlag{Name: "why", Usage: "the reason"}},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			d, err := taskstate.Decide(w, c.Args().First(), c.String("why"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(decideResult{Decision: d, Path: w.Config.Paths.Decisions})
			}
			fmt.Fprintf(a.stdout, "%s recorded in %s\n", d.ID, w.Config.Paths.Decisions)
			return nil
		},
	})
}

// decideResult is `ctxgit decide --json`.
type decideResult struct {
	Decision *spec.Decision `json:"decision"`
	Path     string         `json:"path"`
}
