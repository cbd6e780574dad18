package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) failCommand() *cli.Command {
	var types []string
	for _, t := range spec.FailureTypes {
		types = append(types, string(t))
	}
	return args("SUMMARY").command(&cli.Command{
		Name:  "fail",
		Usage: "record a failure in the failure log",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.StringFlag{Name: "type", Usage: "required: one of " + strings.Join(types, ", ")},
			&cli.StringFlag{Name: "action", Usage: "required: Retry, Pivot, Escalate or Abort"},
			&cli.StringFlag{Name: "lesson", Usage: "what to remember"},
			&cli.StringFlag{Name: "details", Usage: "more text for the entry"},
		},
		Action: func(c *cli.Context) error {
			t, ok := spec.ParseFailureType(c.String("type"))
			if !ok {
				return spec.Usage("--type %q: want one of %s", c.String("type"), strings.Join(types, ", "))
			}
			act, ok := spec.ParseFailureAction(c.String("action"))
			if !ok {
				return spec.Usage("--action %q: want Retry, Pivot, Escalate or Abort", c.String("action"))
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			e, path, err := taskstate.Fail(w, spec.FailureEntry{Summary: c.Args().First(), Type: t, Action: act, Lesson: c.String("lesson"), Body: c.String("details")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(failResult{Failure: e, Path: path})
			}
			fmt.Fprintf(a.stdout, "failure recorded in %s (%s → %s)\n", path, e.Type, e.Action)
			return nil
		},
	})
}

// failResult is `ctxgit fail --json`.
type failResult struct {
	Failure *spec.FailureEntry `json:"failure"`
	Path    string             `json:"path"`
}
