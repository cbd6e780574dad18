package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

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
			stdin, _ := a.stdin.(*os.File)
			interactive := stdin != nil && a.stdoutFile != nil && isTerminal(stdin) && isTerminal(a.stdoutFile)
			st, err := taskstate.StatusCheckAs(w, sess, p, interactive)
			if err != nil {
				return err
			}
			return a.printStatus(st, c.Bool("json"))
		},
	})
}

// printStatus prints the token alone on the first line, then the level and
// what is required, and ends with the token's exit code.
func (a *app) printStatus(st *taskstate.Status, asJSON bool) error {
	for _, n := range st.Notes {
		a.note("%s", n)
	}
	if asJSON {
		out := statusResult{ExitCode: st.ExitCode(), Halt: st.Halt, Level: st.Level, Missing: nonNil(st.Missing), Notes: nonNil(st.Notes),
			Pressure: st.Pressure.Value, PressureKnown: st.Pressure.Known, PressureSource: st.Pressure.Source,
			Required: st.Required, Token: st.Token, Turn: st.Turn}
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

// pressureFlags are how a caller reports context pressure.
func pressureFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "pressure", Usage: "context utilisation, 0.72 or 72% (default: CTXGIT_PRESSURE)"},
		&cli.Int64Flag{Name: "tokens", Usage: "tokens in the context (with --window)"},
		&cli.Int64Flag{Name: "window", Usage: "the context window in tokens (with --tokens)"},
	}
}

// pressure reads --pressure, --tokens/--window, then CTXGIT_PRESSURE.
func pressure(c *cli.Context) (taskstate.Pressure, error) {
	switch {
	case c.IsSet("tokens") || c.IsSet("window"):
		return taskstate.TokenPressure(c.Int64("tokens"), c.Int64("window"))
	case c.String("pressure") != "":
		v, err := taskstate.ParsePressure(c.String("pressure"))
		return taskstate.Pressure{Value: v, Known: true, Source: "--pressure"}, err
	case os.Getenv("CTXGIT_PRESSURE") != "":
		v, err := taskstate.ParsePressure(os.Getenv("CTXGIT_PRESSURE"))
		if err != nil {
			return taskstate.Pressure{}, spec.Usage("CTXGIT_PRESSURE: %v", err)
		}
		return taskstate.Pressure{Value: v, Known: true, Source: "CTXGIT_PRESSURE"}, nil
	}
	return taskstate.Pressure{}, nil
}

// statusResult is `ctxgit status --json` and `ctxgit ensure --json`.
type statusResult struct {
	ExitCode       int             `json:"exit_code"`
	Halt           *taskstate.Halt `json:"halt"`
	Level          taskstate.Level `json:"level"`
	Missing        []string        `json:"missing"`
	Notes          []string        `json:"notes"`
	Pressure       float64         `json:"pressure"`
	PressureKnown  bool            `json:"pressure_known"`
	PressureSource string          `json:"pressure_source"`
	Required       []string        `json:"required"`
	Token          string          `json:"token"`
	Turn           int             `json:"turn"`
}
