package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) resumeCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "resume",
		Usage: "clear a context-limit halt: --override --reason \"…\" (recorded in the task state)",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.BoolFlag{Name: "override", Usage: "required: this is an explicit override"},
			&cli.StringFlag{Name: "reason", Usage: "required: why it is safe to go on"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			if !c.Bool("override") {
				return spec.Usage("resume needs --override: a halt is only cleared explicitly")
			}
			h, err := taskstate.Resume(w, sess, c.String("reason"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(resumeResult{ClearedHalt: h, Reason: c.String("reason"), Session: sess})
			}
			fmt.Fprintf(a.stdout, "halt of %s cleared (override recorded: %s)\n", h.At.Format("2006-01-02T15:04:05Z"), c.String("reason"))
			return nil
		},
	})
}

// resumeResult is `ctxgit resume --json`.
type resumeResult struct {
	ClearedHalt *taskstate.Halt `json:"cleared_halt"`
	Reason      string          `json:"reason"`
	Session     string          `json:"session"`
}
