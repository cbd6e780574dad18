package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the store, locks, state files and host hooks; --fix removes stale locks and repacks",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "fix", Usage: "apply the safe repairs: remove stale locks, repack"},
		},
		Action: func(c *cli.Context) error {
			if err := args(c, 0, 0); err != nil {
				return err
			}
			env, err := workspace.DefaultEnv()
			if err != nil {
				return err
			}
			root, err := workspace.FindRoot(env, c.String("root"))
			if err != nil {
				return err
			}
			// A config that does not parse is one of the findings, not
			// a reason to stop checking.
			w, configErr, err := workspace.OpenForDoctor(env, root)
			if err != nil {
				return err
			}
			a.ws = w
			res, err := w.Doctor(workspace.DoctorOptions{Fix: c.Bool("fix")}, configErr)
			if err != nil {
				return err
			}
			n := res.Problems()
			if c.Bool("json") {
				findings := make([]map[string]any, 0, len(res.Findings))
				for _, f := range res.Findings {
					findings = append(findings, map[string]any{"check": f.Check, "level": f.Level, "message": f.Message, "fix": f.Fix, "fixed": f.Fixed})
				}
				if err := a.printJSON(map[string]any{"healthy": n == 0, "problems": n, "findings": findings}); err != nil {
					return err
				}
			} else {
				for _, f := range res.Findings {
					level := f.Level
					if f.Fixed {
						level = "fixed"
					}
					fmt.Fprintf(a.stdout, "%-8s %-8s %s\n", level, f.Check, f.Message)
					if f.Fix != "" && f.Level != workspace.FindingOK {
						fmt.Fprintf(a.stdout, "%-17s → %s\n", "", f.Fix)
					}
				}
				if n == 0 {
					fmt.Fprintln(a.stdout, "healthy")
				}
			}
			if n > 0 {
				a.note("%d problem(s) remain", n)
				return exitError{code: spec.ExitUnhealthy}
			}
			return nil
		},
	}
}
