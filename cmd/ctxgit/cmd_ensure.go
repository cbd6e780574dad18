package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) ensureCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "ensure",
		Usage: "at startup: initialise, resume or finish the durable task state",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.StringFlag{Name: "goal", Usage: "the goal of a new task (default: the plan's goal)"},
			&cli.StringFlag{Name: "task-id", Usage: "the id of a new task"},
			&cli.BoolFlag{Name: "archive", Usage: "move a task state of another shape aside, then start over"},
			&cli.BoolFlag{Name: "reinit", Usage: "discard a task state of another shape and start over"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("archive") && c.Bool("reinit") {
				return spec.Usage("--archive and --reinit exclude each other")
			}
			w, sess, err := a.sessionWorkspaceWith(c, a.openToCreate)
			if err != nil {
				return err
			}
			st, err := taskstate.Ensure(w, taskstate.EnsureOptions{Session: sess, Goal: c.String("goal"), TaskID: c.String("task-id"),
				Archive: c.Bool("archive"), Reinit: c.Bool("reinit")})
			if err != nil {
				return err
			}
			return a.printStatus(st, c.Bool("json"))
		},
	})
}
