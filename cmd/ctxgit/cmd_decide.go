package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
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
			d, err := w.Decide(c.Args().First(), c.String("why"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"path": w.Config.Paths.Decisions, "decision": d})
			}
			fmt.Fprintf(a.stdout, "%s recorded in %s\n", d.ID, w.Config.Paths.Decisions)
			return nil
		},
	})
}
