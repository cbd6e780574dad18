package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/review"
)

func (a *app) whyCommand() *cli.Command {
	return args("PATH[:LINE[,LINE]]").command(&cli.Command{
		Name:  "why",
		Usage: "follow lines to the commits that made them and their checkpoints: the session, instruction, plan step, decisions",
		Flags: []cli.Flag{rootFlag, jsonFlag},
		Action: func(c *cli.Context) error {
			t, err := review.ParseWhyTarget(c.Args().Get(0))
			if err != nil {
				return err
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			res, err := review.Why(c.Context, w, t)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if res.Hunks == nil {
					res.Hunks = []review.WhyHunk{}
				}
				return a.printJSON(res)
			}
			a.printWhy(res)
			return nil
		},
	})
}

// printWhy renders why's answer for a person: a paragraph per run of
// lines, every text from a checkpoint on one defused line.
func (a *app) printWhy(res *review.WhyResult) {
	for i, h := range res.Hunks {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		lines := fmt.Sprintf("%s:%d", safetext.Path(res.Path), h.From)
		if h.To != h.From {
			lines += fmt.Sprintf("-%d", h.To)
		}
		switch {
		case h.Commit == "":
			fmt.Fprintf(a.stdout, "%s · not committed yet\n", lines)
			continue
		case h.Link == nil:
			fmt.Fprintf(a.stdout, "%s · commit %s %s · no %s trailer: made outside a ctxgit session\n",
				lines, h.Commit[:7], "\""+safetext.Line(h.Summary)+"\"", "Ctxgit-Checkpoint")
			continue
		}
		fmt.Fprintf(a.stdout, "%s · commit %s %s · %s\n", lines, h.Commit[:7], "\""+safetext.Line(h.Summary)+"\"", h.Link)
		cp := h.At
		if cp == nil {
			fmt.Fprintf(a.stdout, "  %s\n", safetext.Line(h.Note))
			continue
		}
		title := ""
		if cp.Title != "" {
			title = " \"" + safetext.Line(cp.Title) + "\""
		}
		// By its short id, as every person-facing line names a session
		// (a fetched one, REMOTE/KEY, keeps its key).
		session := a.short(cp.Session)
		fmt.Fprintf(a.stdout, "  session %s%s · checkpoint %s (ctxgit show %s -s %s)\n", session, title, cp.CheckpointID, cp.CheckpointID, session)
		if cp.Instruction != "" {
			fmt.Fprintf(a.stdout, "  instruction: %s\n", safetext.Line(truncate(cp.Instruction, 200)))
		}
		if cp.PlanStep != "" {
			fmt.Fprintf(a.stdout, "  plan step: %s\n", safetext.Line(cp.PlanStep))
		}
		since := "in the session's first checkpoint"
		if cp.Previous != "" {
			since = "since " + cp.Previous
		}
		if len(cp.Decisions) == 0 {
			fmt.Fprintf(a.stdout, "  decisions %s: none\n", since)
		} else {
			fmt.Fprintf(a.stdout, "  decisions %s:\n", since)
		}
		for _, d := range cp.Decisions {
			line := "    - " + safetext.Line(d.What)
			if strings.TrimSpace(d.Why) != "" {
				line += " — why: " + safetext.Line(d.Why)
			}
			fmt.Fprintln(a.stdout, line)
		}
		if len(cp.Failures) > 0 {
			fmt.Fprintf(a.stdout, "  failures on the way:\n")
		}
		for _, f := range cp.Failures {
			kind := ""
			if f.Type != "" {
				kind = fmt.Sprintf(" (%s → %s)", f.Type, f.Action)
			}
			fmt.Fprintf(a.stdout, "    - %s%s\n", safetext.Line(truncate(f.Summary, 200)), kind)
		}
	}
}

// truncate cuts s to n runes, with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
