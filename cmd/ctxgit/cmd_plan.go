package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

var stepStatuses = map[string]spec.StepStatus{
	"done": spec.StepDone, "in-progress": spec.StepInProgress, "in_progress": spec.StepInProgress,
	"pending": spec.StepPending, "failed": spec.StepFailed,
}

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
			st := w.ReadState()
			for _, p := range st.Problems {
				if fe, ok := p.(*spec.FileError); ok && fe.Path == st.PlanPath {
					return p
				}
			}
			if st.Plan == nil {
				return spec.NotFound("%s does not exist", st.PlanPath)
			}
			if c.Bool("json") {
				out := planResult{Path: st.PlanPath, Plan: st.Plan}
				if cur := st.Plan.Current(); cur != nil {
					out.CurrentStep = &cur.Number
				}
				return a.printJSON(out)
			}
			a.printPlan(st.Plan)
			return nil
		},
		Subcommands: []*cli.Command{args("STEP", "STATUS").command(&cli.Command{
			Name:  "mark",
			Usage: "mark a step done, in-progress, pending or failed (only that line changes)",
			Flags: []cli.Flag{rootFlag, jsonFlag, &cli.StringFlag{Name: "reason", Usage: "why it failed (for failed)"}},
			Action: func(c *cli.Context) error {
				status, ok := stepStatuses[c.Args().Get(1)]
				if !ok {
					return spec.Usage("status %q: want done, in-progress, pending or failed", c.Args().Get(1))
				}
				if status == spec.StepFailed && strings.TrimSpace(c.String("reason")) == "" {
					return spec.Usage("marking a step failed needs --reason")
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

var statusMarks = map[spec.StepStatus]string{
	spec.StepDone: "[x]", spec.StepInProgress: "[>]", spec.StepPending: "[ ]", spec.StepFailed: "[!]",
}

func (a *app) printPlan(p *spec.Plan) {
	if p == nil {
		return
	}
	if p.Title != "" {
		fmt.Fprintf(a.stdout, "Plan: %s\n", oneLine(p.Title))
	}
	if p.Goal != "" {
		fmt.Fprintf(a.stdout, "Goal: %s\n", oneLine(p.Goal))
	}
	if p.DoneWhen != "" {
		fmt.Fprintf(a.stdout, "Done when: %s\n", oneLine(p.DoneWhen))
	}
	done, total := p.Progress()
	fmt.Fprintf(a.stdout, "Steps: %d of %d done\n", done, total)
	cur := p.Current()
	for _, s := range p.Steps {
		marker := "  "
		if cur != nil && s.Number == cur.Number {
			marker = "→ "
		}
		line := marker + statusMarks[s.Status] + " " + oneLine(s.Title())
		if s.FailReason != "" {
			line += " (failed: " + oneLine(s.FailReason) + ")"
		}
		if s.PivotTo != "" {
			line += " → step " + oneLine(s.PivotTo)
		}
		fmt.Fprintln(a.stdout, line)
	}
	for _, o := range p.OpenItems {
		fmt.Fprintf(a.stdout, "Open: %s\n", oneLine(o))
	}
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
