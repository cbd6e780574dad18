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
	return args("SUMMARY|ID?").command(&cli.Command{
		Name:  "fail",
		Usage: "record a failure in the failure log, or mark one resolved",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "resolved", Usage: "mark failure ID (f_NNN or its number; default: the newest not resolved) resolved"},
			&cli.StringFlag{Name: "type", Usage: "one of " + strings.Join(types, ", ") + " (default: none, an unclassified failure)"},
			&cli.StringFlag{Name: "action", Usage: "Retry, Pivot, Escalate or Abort (default: none chosen yet)"},
			&cli.StringFlag{Name: "lesson", Usage: "what to remember"},
			&cli.StringFlag{Name: "details", Usage: "more text for the entry"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("resolved") {
				return a.resolveFailure(c)
			}
			// Both are optional, so the one-line `ctxgit fail "…"` the
			// onboarding card teaches records an unclassified entry
			// (SPEC §5.2); one given must be known.
			var typ, action *string
			if t := c.String("type"); c.IsSet("type") {
				typ = &t
			}
			if act := c.String("action"); c.IsSet("action") {
				action = &act
			}
			t, act, err := spec.ParseFailureKind(typ, action, "--")
			if err != nil {
				return err
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			r, err := taskstate.RecordFailure(w, spec.FailureEntry{Summary: c.Args().First(), Type: t, Action: act, Lesson: c.String("lesson"), Body: c.String("details")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(failResult{Failure: r.Failure, ID: r.ID, Path: r.Path})
			}
			fmt.Fprintf(a.stdout, "failure %s recorded in %s (%s)\n", r.ID, r.Path, r.Failure.Kind())
			return nil
		},
	})
}

// resolveFailure is `ctxgit fail --resolved [ID]` (SPEC §5.6).
func (a *app) resolveFailure(c *cli.Context) error {
	for _, f := range []string{"type", "action", "lesson", "details"} {
		if c.IsSet(f) {
			return spec.Usage("--resolved takes no --%s", f)
		}
	}
	w, err := a.open(c)
	if err != nil {
		return err
	}
	r, err := taskstate.ResolveFailure(w, c.Args().First())
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return a.printJSON(resolveResult{AlreadyResolved: r.AlreadyResolved, Failure: r.Failure, Path: r.Path})
	}
	fmt.Fprint(a.stdout, r.Said())
	return nil
}

// failResult is `ctxgit fail --json`.
type failResult struct {
	Failure *spec.FailureEntry `json:"failure"`
	ID      string             `json:"id"`
	Path    string             `json:"path"`
}

// resolveResult is `ctxgit fail --resolved --json`.
type resolveResult struct {
	AlreadyResolved bool                       `json:"already_resolved"`
	Failure         *taskstate.ResolvedFailure `json:"failure"`
	Path            string                     `json:"path"`
}
