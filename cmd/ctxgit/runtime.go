package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// pressureFlags are how a caller reports context pressure.
func pressureFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "pressure", Usage: "context utilisation, 0.72 or 72% (default: CTXGIT_PRESSURE)"},
		&cli.Int64Flag{Name: "tokens", Usage: "tokens in the context (with --window)"},
		&cli.Int64Flag{Name: "window", Usage: "the context window in tokens (with --tokens)"},
	}
}

// pressure reads --pressure, --tokens/--window, then CTXGIT_PRESSURE.
func pressure(c *cli.Context) (workspace.Pressure, error) {
	switch {
	case c.IsSet("tokens") || c.IsSet("window"):
		return workspace.TokenPressure(c.Int64("tokens"), c.Int64("window"))
	case c.String("pressure") != "":
		v, err := workspace.ParsePressure(c.String("pressure"))
		return workspace.Pressure{Value: v, Known: true, Source: "--pressure"}, err
	case os.Getenv("CTXGIT_PRESSURE") != "":
		v, err := workspace.ParsePressure(os.Getenv("CTXGIT_PRESSURE"))
		if err != nil {
			return workspace.Pressure{}, spec.Usage("CTXGIT_PRESSURE: %v", err)
		}
		return workspace.Pressure{Value: v, Known: true, Source: "CTXGIT_PRESSURE"}, nil
	}
	return workspace.Pressure{}, nil
}

// printStatus prints the token alone on the first line, then the level and
// what is required, and ends with the token's exit code.
func (a *app) printStatus(st *workspace.Status, asJSON bool) error {
	for _, n := range st.Notes {
		a.note("%s", n)
	}
	if asJSON {
		out := map[string]any{"token": st.Token, "exit_code": st.ExitCode(), "level": st.Level,
			"pressure": st.Pressure.Value, "pressure_known": st.Pressure.Known, "pressure_source": st.Pressure.Source,
			"required": st.Required, "missing": nonNil(st.Missing), "turn": st.Turn, "halt": st.Halt, "notes": nonNil(st.Notes)}
		if err := a.printJSON(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(a.stdout, st.Token)
		src := st.Pressure.Source
		if src == "" {
			src = "not checked"
		}
		fmt.Fprintf(a.stdout, "level: %s (%.0f%%, %s)\n", st.Level, st.Pressure.Value*100, src)
		if len(st.Missing) > 0 {
			fmt.Fprintf(a.stdout, "missing: %s\n", strings.Join(st.Missing, ", "))
		}
		if st.Halt != nil {
			fmt.Fprintf(a.stdout, "halted: %s at %.0f%% (checkpoint %s, summary %s)\n", st.Halt.At.Format("2006-01-02T15:04:05Z"), st.Halt.Pressure*100, orDash(st.Halt.Checkpoint), orDash(st.Halt.Summary))
		}
		if len(st.Required) == 0 {
			fmt.Fprintln(a.stdout, "required: nothing")
		}
		for _, r := range st.Required {
			fmt.Fprintf(a.stdout, "required: %s\n", r)
		}
	}
	if code := st.ExitCode(); code != spec.ExitOK {
		return exitError{code}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *app) statusCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "status",
		Usage: "before a major action: print STATUS:OK, STATUS:MISSING_STATE, STATUS:HALT_CONTEXT_LIMIT or STATUS:COMPLETE",
		Flags: append([]cli.Flag{rootFlag, jsonFlag, sessionFlag()}, pressureFlags()...),
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			p, err := pressure(c)
			if err != nil {
				return err
			}
			// A person at a terminal: both ends are one. An agent's shell
			// tool runs ctxgit with pipes.
			interactive := isTerminal(os.Stdin) && isTerminal(os.Stdout)
			st, err := w.StatusCheckAs(sess, p, interactive)
			if err != nil {
				return err
			}
			return a.printStatus(st, c.Bool("json"))
		},
	})
}

func (a *app) ensureCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "ensure",
		Usage: "at startup: initialise, resume or finish the durable task state",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.StringFlag{Name: "goal", Usage: "the goal of a new task (default: the plan's goal)"},
			&cli.StringFlag{Name: "task-id", Usage: "the id of a new task"},
			&cli.BoolFlag{Name: "archive", Usage: "move a task state of another shape aside, then start over"},
			&cli.BoolFlag{Name: "reinit", Usage: "discard a task state of another shape and start over"},
		},
		Action: func(c *cli.Context) error {
			sess, err := session(c)
			if err != nil {
				return err
			}
			w, err := a.openToCreate(c)
			if err != nil {
				return err
			}
			if c.Bool("archive") && c.Bool("reinit") {
				return spec.Usage("--archive and --reinit exclude each other")
			}
			st, err := w.Ensure(workspace.EnsureOptions{Session: sess, Goal: c.String("goal"), TaskID: c.String("task-id"),
				Archive: c.Bool("archive"), Reinit: c.Bool("reinit")})
			if err != nil {
				return err
			}
			return a.printStatus(st, c.Bool("json"))
		},
	})
}

func (a *app) resumeCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "resume",
		Usage: "clear a context-limit halt: --override --reason \"…\" (recorded in the task state)",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.BoolFlag{Name: "override", Usage: "required: this is an explicit override"},
			&cli.StringFlag{Name: "reason", Usage: "required: why it is safe to go on"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			if !c.Bool("override") {
				return spec.Usage("resume needs --override: a halt is only cleared explicitly")
			}
			h, err := w.Resume(sess, c.String("reason"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"session": sess, "cleared_halt": h, "reason": c.String("reason")})
			}
			fmt.Fprintf(a.stdout, "halt of %s cleared (override recorded: %s)\n", h.At.Format("2006-01-02T15:04:05Z"), c.String("reason"))
			return nil
		},
	})
}

func (a *app) summaryCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "summary",
		Usage: "write the task summary (timestamped and latest-summary.md) from the task state, plan and logs",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag()},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			p, err := w.WriteSummary(sess)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"path": p})
			}
			fmt.Fprintf(a.stdout, "wrote %s\n", p)
			return nil
		},
	})
}

func (a *app) bundleCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "bundle",
		Usage: "print the working bundle: goal, phase, next action, last success, constraints, artifacts",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.IntFlag{Name: "budget", Value: workspace.DefaultBundleBudget, Usage: "bytes of artifact content at most"},
		},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			if c.Int("budget") <= 0 {
				return spec.Usage("--budget must be positive")
			}
			b, err := w.Bundle(c.Int("budget"))
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

func (a *app) printBundle(b *workspace.Bundle) {
	out := a.stdout
	// Every field is folded onto its line (SPEC §12.7), so no value can
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

func (a *app) gaugeCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "gauge",
		Usage: "print the context gauge: [Context: 81% | 162k/200k tokens | level]",
		Flags: append([]cli.Flag{rootFlag, jsonFlag}, pressureFlags()...),
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			p, err := pressure(c)
			if err != nil {
				return err
			}
			if !p.Known {
				return spec.Usage("gauge needs --pressure, --tokens and --window, or CTXGIT_PRESSURE")
			}
			level := w.Level(p.Value)
			if c.Bool("json") {
				return a.printJSON(map[string]any{"utilization": p.Value, "tokens": p.Tokens, "window": p.Window,
					"level": level, "action": workspace.LevelAction(level), "line": workspace.GaugeLine(p, level, "")})
			}
			fmt.Fprintln(a.stdout, workspace.GaugeLine(p, level, ""))
			return nil
		},
	})
}
