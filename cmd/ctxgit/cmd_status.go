package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) statusCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "status",
		Usage: "before a major action: print STATUS:OK, STATUS:MISSING_STATE, STATUS:HALT_CONTEXT_LIMIT or STATUS:COMPLETE",
		Flags: append([]cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.BoolFlag{Name: "words", Usage: "print the overview and the verdict in words, as at a terminal"},
			&cli.BoolFlag{Name: "token", Usage: "print the token form (STATUS:…), as when piped or in an agent's shell"},
		}, pressureFlags()...),
		Action: func(c *cli.Context) error {
			if c.Bool("words") && c.Bool("token") {
				return spec.Usage("--words and --token ask for different forms: give one")
			}
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			p, err := pressure(c)
			if err != nil {
				return err
			}
			// Who reads, decided once for the form and for the turn a
			// call counts as: a person at a terminal, where both ends are
			// one, unless it is an agent host's shell (a pty is no
			// person: agentShell), or whoever asks for --words. An
			// agent's call is a turn; a person's is not, so a person's
			// status never halts the agent's session.
			stdin, _ := a.stdin.(*os.File)
			terminal := a.stdoutIsTerminal() && (os.Getenv(testTerminalEnv) == "1" || stdin != nil && isTerminal(stdin))
			person := c.Bool("words") || terminal && agentShell() == ""
			st, err := taskstate.StatusCheckAs(w, sess, p, person)
			if err != nil {
				return err
			}
			if c.Bool("words") || person && !c.Bool("token") && !c.Bool("json") {
				return a.printStatusWords(c, w, sess, st)
			}
			return a.printStatus(st, c.Bool("json"))
		},
	})
}

// agentShells are the variables each host sets in the shells its agent's
// tool runs commands in (docs/cli.md#status cites each host's docs). A
// host may give its shell tool a pseudo-terminal (Gemini CLI does), so a
// terminal alone does not mean a person is reading.
var agentShells = []string{"CLAUDECODE", "GEMINI_CLI", "CODEX_THREAD_ID", "CURSOR_AGENT", "OPENCLAW_SHELL", "QWEN_CODE", "COPILOT_CLI"}

// agentShell is the first of agentShells set here, "" when none is.
func agentShell() string {
	for _, v := range agentShells {
		if os.Getenv(v) != "" {
			return v
		}
	}
	return ""
}

// printStatusWords is status for a person: the overview, then the
// contract's verdict in words and what it asks for. The exit code is the
// token's, as in the token form.
func (a *app) printStatusWords(c *cli.Context, w *workspace.Workspace, sess string, st *taskstate.Status) error {
	if err := a.forPeople(c, false); err != nil {
		return err
	}
	v, err := a.buildWhere(c.Context, w, sess, true)
	if err != nil {
		return err
	}
	a.printWhere(v, w.Env.Now(), w.Config.Pressure)
	fmt.Fprintf(a.stdout, "\n%s\n", a.paint(styleBold, statusVerdict(st)))
	for _, m := range st.Missing {
		fmt.Fprintf(a.stdout, "  missing: %s\n", m)
	}
	for _, r := range st.Required {
		fmt.Fprintf(a.stdout, "  needed: %s\n", r)
	}
	for _, n := range st.Notes {
		a.note("%s", n)
	}
	if code := st.ExitCode(); code != spec.ExitOK {
		return exitError{code}
	}
	return nil
}

// statusVerdict says in words what the token says to an agent's loop.
func statusVerdict(st *taskstate.Status) string {
	pct := "no context reading"
	if st.Pressure.Known {
		pct = fmt.Sprintf("context %.0f%% full", st.Pressure.Value*100)
	}
	switch st.Token {
	case workspace.StatusOK:
		return fmt.Sprintf("Runtime contract: an agent's loop may go on (%s; %s).", pct, st.Token)
	case workspace.StatusMissingState:
		return fmt.Sprintf("Runtime contract: no usable task state, so an agent's loop would stop here (%s; %s).", pct, st.Token)
	case workspace.StatusHalt:
		return fmt.Sprintf("Runtime contract: the session is halted at the context limit until ctxgit resume (%s; %s).", pct, st.Token)
	case workspace.StatusComplete:
		return fmt.Sprintf("Runtime contract: the task state says the task is done (%s; %s).", pct, st.Token)
	}
	return "Runtime contract: " + st.Token
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
			fmt.Fprintf(a.stdout, "halted: %s at %.0f%% (checkpoint %s, summary %s)\n", st.Halt.At.Format("2006-01-02T15:04:05Z"), st.Halt.Pressure*100, orDash(a.shortName(st.Halt.Checkpoint)), orDash(st.Halt.Summary))
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
