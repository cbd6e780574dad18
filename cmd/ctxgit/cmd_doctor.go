package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/gitlink"
	"github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/retention"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) doctorCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "doctor",
		Usage: "check the store, locks, state files and host hooks; --fix removes stale locks and repacks",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "fix", Usage: "apply the safe repairs: remove stale locks, repack"},
			&cli.IntFlag{Name: "max-loose", Value: retention.DefaultLooseThreshold, Usage: "loose objects above which a repack is suggested (and done by --fix)"},
		},
		Action: func(c *cli.Context) error {
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
			if c.Int("max-loose") < 0 {
				return spec.Usage("--max-loose must be at least 0, got %d", c.Int("max-loose"))
			}
			res, err := retention.Doctor(w, retention.DoctorOptions{Fix: c.Bool("fix"), LooseThreshold: c.Int("max-loose"), Ctx: c.Context, Hooks: func(w *workspace.Workspace, fix bool) []retention.Finding {
				return append(hostconfig.DoctorHooks(w), gitlink.Doctor(c.Context, w, fix)...)
			}}, configErr)
			if err != nil {
				return err
			}
			n := res.Problems()
			if c.Bool("json") {
				out := doctorResult{Findings: make([]doctorFinding, 0, len(res.Findings)), Healthy: n == 0, Problems: n}
				for _, f := range res.Findings {
					out.Findings = append(out.Findings, doctorFinding{f.Check, f.Level, f.Message, f.Fix, f.Fixed})
				}
				if err := a.printJSON(out); err != nil {
					return err
				}
			} else {
				for _, f := range res.Findings {
					level := f.Level
					if f.Fixed {
						level = "fixed"
					}
					fmt.Fprintf(a.stdout, "%-8s %-8s %s\n", level, f.Check, f.Message)
					if f.Fix != "" && f.Level != retention.FindingOK {
						fmt.Fprintf(a.stdout, "%-17s → %s\n", "", f.Fix)
					}
				}
				if n == 0 {
					fmt.Fprintln(a.stdout, "healthy")
				}
			}
			if n > 0 {
				a.note("%s remain", spec.Plural(n, "problem"))
				return exitError{code: spec.ExitUnhealthy}
			}
			return nil
		},
	})
}

// doctorResult is `ctxgit doctor --json`.
type doctorResult struct {
	Findings []doctorFinding `json:"findings"`
	Healthy  bool            `json:"healthy"`
	Problems int             `json:"problems"`
}

// doctorFinding is one check's finding.
type doctorFinding struct {
	Check   string `json:"check"`
	Level   string `json:"level"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	Fixed   bool   `json:"fixed"`
}
