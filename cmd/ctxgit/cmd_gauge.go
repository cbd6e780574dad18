package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) gaugeCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "gauge",
		Usage: "print the context gauge: [Context: 81% | 162k/200k tokens | level]",
		Flags: append([]cli.Flag{rootFlag, jsonFlag}, pressureFlags()...),
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			p, err := pressure(c)
			if err != nil {
				return err
			}
			if !p.Known {
				return spec.Usage("gauge needs --pressure, --tokens and --window, or CTXGIT_PRESSURE")
			}
			level := taskstate.LevelOf(w, p.Value)
			if c.Bool("json") {
				return a.printJSON(gaugeResult{Action: taskstate.LevelAction(level), Level: level, Line: taskstate.GaugeLine(p, level, ""),
					Tokens: p.Tokens, Utilization: p.Value, Window: p.Window})
			}
			fmt.Fprintln(a.stdout, taskstate.GaugeLine(p, level, ""))
			return nil
		},
	})
}

// gaugeResult is `ctxgit gauge --json`.
type gaugeResult struct {
	Action      string          `json:"action"`
	Level       taskstate.Level `json:"level"`
	Line        string          `json:"line"`
	Tokens      int64           `json:"tokens"`
	Utilization float64         `json:"utilization"`
	Window      int64           `json:"window"`
}
