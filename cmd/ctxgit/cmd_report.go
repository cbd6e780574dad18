package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) reportCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "report",
		Usage: "print a session's history as markdown for a pull request description",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.StringFlag{Name: "since", Usage: "start after this checkpoint (default: the session's first checkpoint)"},
			&cli.StringFlag{Name: "base", Usage: "list files against the merge base of HEAD and this `REF` (the pull request's target branch)"},
			&cli.BoolFlag{Name: "all-sessions", Usage: "merge every session of the workspace, in time order"},
			&cli.StringFlag{Name: "format", Value: workspace.FormatMarkdown, Usage: "markdown, or github: cut to fit GitHub's comment limit"},
		},
		Action: func(c *cli.Context) error {
			sess, err := session(c)
			if err != nil {
				return err
			}
			format := c.String("format")
			if format != workspace.FormatMarkdown && format != workspace.FormatGitHub {
				return spec.Usage("--format %q: want markdown or github", format)
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			if sess, err = a.pickSession(c, w, sess, true); err != nil {
				return err
			}
			r, err := w.Report(workspace.ReportOptions{Session: sess, Since: c.String("since"), Base: c.String("base"), AllSessions: c.Bool("all-sessions")})
			if err != nil {
				return err
			}
			for _, p := range r.Problems {
				a.warn("%s", p.Error())
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{
					"session": r.Session, "sessions": r.Sessions, "base": cpRef(r.Base), "head": cpRef(r.Head), "since": r.Since,
					"title": r.Title, "goal": r.Goal, "checklist": checklistJSON(r.Checklist), "open": nonNil(r.Open), "files_base": r.FilesBase,
					"checkpoints": nonNil(r.Checkpoints), "files": nonNil(r.Files), "totals": workspace.Totals(r.Files),
					"task": taskJSON(r.Task), "plan": map[string]any{
						"from_done": r.Plan.FromDone, "from_total": r.Plan.FromTotal, "to_done": r.Plan.ToDone, "to_total": r.Plan.ToTotal,
						"steps": nonNil(r.Steps)},
					"decisions": nonNil(r.Decisions), "failures": nonNil(r.Failures), "open_items": nonNil(r.OpenItems),
				})
			}
			_, err = fmt.Fprint(a.stdout, workspace.RenderReportFormat(r, format))
			return err
		},
	})
}

// checklistJSON is the head plan's steps as report --json gives them.
func checklistJSON(steps []spec.Step) []map[string]string {
	out := []map[string]string{}
	for _, s := range steps {
		m := map[string]string{"number": s.Number, "name": s.Name, "status": string(s.Status)}
		if s.FailReason != "" {
			m["fail_reason"] = s.FailReason
		}
		out = append(out, m)
	}
	return out
}
