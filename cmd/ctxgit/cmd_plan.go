package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) planCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "plan",
		Usage: "print the parsed plan, or mark a step",
		Flags: []cli.Flag{rootFlag, jsonFlag},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			plan, path, err := taskstate.ReadPlan(w)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				out := planResult{Path: path, Plan: plan}
				if cur := plan.Current(); cur != nil {
					out.CurrentStep = &cur.Number
				}
				return a.printJSON(out)
			}
			a.printPlan(plan)
			return nil
		},
		Subcommands: []*cli.Command{args("STEP", "STATUS").command(&cli.Command{
			Name:  "mark",
			Usage: "mark a step done, in-progress, pending or failed (only that line changes)",
			Flags: []cli.Flag{rootFlag, jsonFlag, &cli.StringFlag{Name: "reason", Usage: "why it failed (for failed)"}},
			Action: func(c *cli.Context) error {
				status, err := taskstate.ParseStepStatus(c.Args().Get(1), c.String("reason"))
				if err != nil {
					return err
				}
				w, err := a.open(c)
				if err != nil {
					return err
				}
				r, err := taskstate.Mark(w, c.Args().Get(0), status, c.String("reason"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					resolved := r.Resolved
					if resolved == nil {
						resolved = []taskstate.ResolvedFailure{}
					}
					return a.printJSON(planMarkResult{Path: w.Config.Paths.Plan, Plan: r.Plan, Resolved: resolved})
				}
				a.printPlan(r.Plan)
				// Done resolves the step's failures (SPEC §5.6): say which,
				// so the agent knows they left the recovery block.
				for _, f := range r.Resolved {
					fmt.Fprintf(a.stdout, "resolved %s in %s: %s\n", f.ID, r.LogPath, oneLine(f.Summary))
				}
				return nil
			},
		})},
	})
}

func (a *app) printPlan(p *spec.Plan) {
	fmt.Fprint(a.stdout, taskstate.RenderPlan(p))
}

// planResult is `ctxgit plan --json`: current_step is null when no step
// is open.
type planResult struct {
	CurrentStep *string    `json:"current_step"`
	Path        string     `json:"path"`
	Plan        *spec.Plan `json:"plan"`
}

// planMarkResult is `ctxgit plan mark --json`.
type planMarkResult struct {
	Path     string                      `json:"path"`
	Plan     *spec.Plan                  `json:"plan"`
	Resolved []taskstate.ResolvedFailure `json:"resolved"`
}
