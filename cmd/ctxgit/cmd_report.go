package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) reportCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "report",
		Usage: "print the branch's pull request (or the session's history) as markdown, or as an HTML timeline",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.StringFlag{Name: "since", Usage: "start after this checkpoint (default: the session's first checkpoint)"},
			&cli.StringFlag{Name: "base", Usage: "report HEAD's branch against this `REF`, the pull request's target (default: the repository's default branch)"},
			&cli.BoolFlag{Name: "all-sessions", Usage: "merge the sessions that worked on HEAD's branch, in time order"},
			&cli.StringFlag{Name: "format", Value: review.FormatMarkdown, Usage: "markdown, github (cut to fit GitHub's comment limit) or html"},
			&cli.BoolFlag{Name: "html", Usage: "one self-contained HTML page: a timeline of context, checkpoints, decisions and failures (--format html)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` (replaced atomically) instead of stdout"},
			noPagerFlag(),
		},
		Action: func(c *cli.Context) error {
			sess, err := readSession(c) // a key, or REMOTE/KEY for a fetched session
			if err != nil {
				return err
			}
			format := c.String("format")
			if c.Bool("html") {
				if c.IsSet("format") && format != review.FormatHTML {
					return spec.Usage("--html and --format %s cannot be used together", format)
				}
				format = review.FormatHTML
			}
			if format != review.FormatMarkdown && format != review.FormatGitHub && format != review.FormatHTML {
				return spec.Usage("--format %q: want markdown, github or html", format)
			}
			if format == review.FormatHTML && c.Bool("json") {
				return spec.Usage("--json and an HTML report cannot be used together")
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			// Which session, said only when the report turns out to be of
			// it alone: a branch's report merges every session of the
			// branch.
			choice, err := workspace.PickSession(w, sess, c.IsSet("session"), true)
			if err != nil {
				return err
			}
			r, err := review.BuildReport(w, review.ReportOptions{Session: choice.Session, Since: c.String("since"), Base: c.String("base"),
				AllSessions: c.Bool("all-sessions"), SessionNamed: c.IsSet("session"), Patches: format == review.FormatHTML})
			if err != nil {
				return err
			}
			if choice.Why != "" && r.Scope == review.ScopeSession && len(r.Sessions) == 1 && r.Session == choice.Session {
				a.note("session %s (%s)", a.short(choice.Session), choice.Why)
			}
			for _, p := range r.Problems {
				a.warn("%s", p.Error())
			}
			if c.Bool("json") {
				return a.writeReport(c, nil, reportResult{
					Base: cpRef(r.Base), Checklist: checklistJSON(r.Checklist), Checkpoints: nonNil(r.Checkpoints),
					Decisions: nonNil(r.Decisions), Failures: nonNil(r.Failures), Files: nonNil(r.Files), FilesBase: r.FilesBase,
					Commits: nonNil(r.Commits), Uncommitted: nonNil(r.Uncommitted),
					Goal: r.Goal, Head: cpRef(r.Head), Open: nonNil(r.Open), OpenItems: nonNil(r.OpenItems),
					Plan: reportPlan{FromDone: r.Plan.FromDone, FromTotal: r.Plan.FromTotal, Steps: nonNil(r.Steps),
						ToDone: r.Plan.ToDone, ToTotal: r.Plan.ToTotal},
					Session: r.Session, Sessions: r.Sessions, Since: r.Since, Task: taskJSON(r.Task), Title: r.Title,
					Totals: review.Totals(r.Files), Scope: r.Scope, ScopeWhy: r.ScopeWhy, Branch: r.Branch, BaseFound: r.BaseFound,
					Instructions: nonNil(r.Instructions), Readings: nonNil(r.Readings),
				})
			}
			var out []byte
			if format == review.FormatHTML {
				if out, err = review.RenderReportHTML(r); err != nil {
					return err
				}
			} else {
				out = []byte(review.RenderReportFormat(r, format))
				if c.String("output") == "" {
					// Markdown on a terminal is long: paged (HTML is not
					// for reading there).
					if err := a.forPeople(c, true); err != nil {
						return err
					}
				}
			}
			return a.writeReport(c, out, nil)
		},
	})
}

// writeReport prints the report (out, or v as JSON), or with --output
// writes it to that file, whole or not at all.
func (a *app) writeReport(c *cli.Context, out []byte, v any) error {
	path := c.String("output")
	if path == "" {
		if v != nil {
			return a.printJSON(v)
		}
		_, err := a.stdout.Write(out)
		return err
	}
	if v != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // as printJSON
		if err := enc.Encode(v); err != nil {
			return err
		}
		out = b.Bytes()
	}
	if err := atomicfile.Write(path, out, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, errors.Unwrap(err))
	}
	return nil
}

// reportResult is `ctxgit report --json`.
type reportResult struct {
	Base         *checkpointRef             `json:"base"`
	BaseFound    bool                       `json:"base_found"`
	Branch       string                     `json:"branch,omitempty"`
	Checklist    []checklistStep            `json:"checklist"`
	Checkpoints  []review.ReportRow         `json:"checkpoints"`
	Commits      []review.ReportCommit      `json:"commits"`
	Decisions    []review.ReportDecision    `json:"decisions"`
	Failures     []review.ReportFailure     `json:"failures"`
	Files        []review.FileDiff          `json:"files"`
	FilesBase    *review.ReportBase         `json:"files_base"`
	Goal         string                     `json:"goal"`
	Head         *checkpointRef             `json:"head"`
	Instructions []review.ReportInstruction `json:"instructions"`
	Open         []string                   `json:"open"`
	OpenItems    []review.ReportOpenItem    `json:"open_items"`
	Plan         reportPlan                 `json:"plan"`
	Readings     []review.ReportReading     `json:"readings"`
	Scope        string                     `json:"scope"`
	ScopeWhy     string                     `json:"scope_why,omitempty"`
	Session      string                     `json:"session"`
	Sessions     []string                   `json:"sessions"`
	Since        bool                       `json:"since"`
	Task         []taskChange               `json:"task"`
	Title        string                     `json:"title"`
	Totals       review.FileTotals          `json:"totals"`
	Uncommitted  []review.FileDiff          `json:"uncommitted"`
}

// reportPlan is the plan's progress from base to head, and each step's
// changes.
type reportPlan struct {
	FromDone  int                 `json:"from_done"`
	FromTotal int                 `json:"from_total"`
	Steps     []review.ReportStep `json:"steps"`
	ToDone    int                 `json:"to_done"`
	ToTotal   int                 `json:"to_total"`
}

// checklistStep is one of the head plan's steps.
type checklistStep struct {
	FailReason string `json:"fail_reason,omitempty"`
	Name       string `json:"name"`
	Number     string `json:"number"`
	Status     string `json:"status"`
}

// checklistJSON is the head plan's steps as report --json gives them.
func checklistJSON(steps []spec.Step) []checklistStep {
	out := []checklistStep{}
	for _, s := range steps {
		out = append(out, checklistStep{FailReason: s.FailReason, Name: s.Name, Number: s.Number, Status: string(s.Status)})
	}
	return out
}
