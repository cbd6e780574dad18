package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// Output for people (docs/cli.md#global-options): colour, the pager and
// relative times, on a terminal only. JSON, hooks and anything piped get
// none of them.

// The --color values.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// testTerminalEnv set to 1 makes ctxgit take its stdout for a terminal.
// For tests only: the acceptance scripts run with stdout in a file.
const testTerminalEnv = "CTXGIT_TEST_TERMINAL"

// colorFlag and noPagerFlag are global (taken before the command by
// takeOutputFlags) and also flags of the commands whose output is for
// people, after the command.
func colorFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "color", Value: colorAuto, Usage: "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never"}
}

func noPagerFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "no-pager", Usage: "do not page long output (default: CTXGIT_PAGER, PAGER, else less -FRX, on a terminal)"}
}

// outputOpts are the output flags given.
type outputOpts struct {
	color   string // "" when not given
	noPager bool
}

// takeOutputFlags removes --color and --no-pager given before the command
// name, where they apply to any command, and returns them. After the
// command name they are that command's own flags.
func takeOutputFlags(args []string) ([]string, outputOpts, error) {
	var o outputOpts
	if len(args) < 2 {
		return args, o, nil
	}
	out := []string{args[0]}
	i := 1
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--"; i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch {
		case name == "no-pager" && !hasValue:
			o.noPager = true
		case name == "color":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, o, spec.Usage("flag needs an argument: --color")
				}
				i++
				value = args[i]
			}
			if err := checkColor(value); err != nil {
				return nil, o, err
			}
			o.color = value
		default:
			out = append(out, args[i])
			if !hasValue && globalTakesValue(name) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return append(out, args[i:]...), o, nil
}

func checkColor(v string) error {
	switch v {
	case colorAuto, colorAlways, colorNever:
		return nil
	}
	return spec.Usage("--color %q: want auto, always or never", v)
}

// forPeople settles how a command's human output looks: colour from
// --color (then NO_COLOR, then whether stdout is a terminal), relative
// times on a terminal, and with page the pager (docs/cli.md#global-options).
// Commands call it once they know their output is for people: not JSON,
// not a file.
func (a *app) forPeople(c *cli.Context, page bool) error {
	o := a.outOpts
	if c.IsSet("color") {
		o.color = c.String("color")
		if err := checkColor(o.color); err != nil {
			return err
		}
	}
	if c.Bool("no-pager") {
		o.noPager = true
	}
	a.tty = a.stdoutIsTerminal()
	switch o.color {
	case colorAlways:
		a.color = true
	case colorNever:
		a.color = false
	default:
		a.color = a.tty && os.Getenv("NO_COLOR") == ""
	}
	if page && a.tty && !o.noPager {
		a.startPager()
	}
	return nil
}

// stdoutIsTerminal: stdout is a terminal (or a test says so).
func (a *app) stdoutIsTerminal() bool {
	if os.Getenv(testTerminalEnv) == "1" {
		return true
	}
	return a.stdoutFile != nil && isTerminal(a.stdoutFile)
}

// SGR styles, few and restrained, as git uses them.
const (
	styleBold   = "1"
	styleDim    = "2"
	styleRed    = "31"
	styleGreen  = "32"
	styleYellow = "33"
	styleCyan   = "36"
)

// paint wraps s in a style when colour is on.
func (a *app) paint(style, s string) string {
	if !a.color || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[m"
}

// when is a time as people read it: relative on a terminal ("5 min ago"),
// else RFC 3339 as before, so scripts keep what they parse.
func (a *app) when(now, t time.Time) string {
	if a.tty {
		return relativeTime(now, t)
	}
	return t.UTC().Format(time.RFC3339)
}

// relativeTime says how long ago t was, as a person says it; past a week,
// or in the future, the date.
func relativeTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return t.UTC().Format("2006-01-02 15:04Z")
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	case d < 48*time.Hour:
		return "1 day ago"
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	}
	return t.UTC().Format("2006-01-02")
}
