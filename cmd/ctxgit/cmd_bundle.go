package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

func (a *app) bundleCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "bundle",
		Usage: "print the working bundle: goal, phase, next action, last success, constraints, artifacts",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.IntFlag{Name: "budget", Value: taskstate.DefaultBundleBudget, Usage: "bytes of artifact content at most"},
		},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			if c.Int("budget") <= 0 {
				return spec.Usage("--budget must be positive")
			}
			b, err := taskstate.BuildBundle(w, c.Int("budget"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(b)
			}
			a.printBundle(b)
			return nil
		},
	})
}

func (a *app) printBundle(b *taskstate.Bundle) {
	out := a.stdout
	// Every field is folded onto its line (docs/cli.md#bundle), so no value can
	// forge a heading or a signal; contents are fenced below.
	line := safetext.Line
	fmt.Fprintf(out, "# Working bundle\n\nGoal: %s\nPhase: %s\nNext action: %s\n", orDash(line(b.Goal)), orDash(line(b.Phase)), orDash(line(b.NextAction)))
	if s := b.LastSuccessfulAction; s != nil {
		fmt.Fprintf(out, "Last successful action: %s (%s)\n", line(s.Summary), line(s.Timestamp))
	} else {
		fmt.Fprintln(out, "Last successful action: -")
	}
	fmt.Fprintln(out, "Constraints:")
	if len(b.Constraints) == 0 {
		fmt.Fprintln(out, "- (none)")
	}
	for _, c := range b.Constraints {
		fmt.Fprintf(out, "- %s\n", line(c))
	}
	if len(b.Missing) > 0 {
		fmt.Fprintf(out, "Missing: %s\n", strings.Join(b.Missing, ", "))
	}
	for _, art := range b.Artifacts {
		fmt.Fprintf(out, "\n## %s (%s)\n", line(art.Path), art.Why)
		if art.Description != "" {
			fmt.Fprintln(out, line(art.Description))
		}
		if art.Note != "" {
			fmt.Fprintf(out, "(%s)\n", art.Note)
			continue
		}
		fence := "```"
		for strings.Contains(art.Content, fence) {
			fence += "`"
		}
		fmt.Fprintf(out, "%s\n%s", fence, safetext.Visible(art.Content))
		if !strings.HasSuffix(art.Content, "\n") {
			fmt.Fprintln(out)
		}
		fmt.Fprintln(out, fence)
		if art.Truncated > 0 {
			fmt.Fprintf(out, "(%d more bytes not shown: bundle budget)\n", art.Truncated)
		}
	}
}
