package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// globalFlags are accepted before the command as well as after it:
// `ctxgit --root DIR log` is `ctxgit log --root DIR`. They are listed
// under GLOBAL OPTIONS; each command that takes one also lists it.
func globalFlags() []cli.Flag {
	return []cli.Flag{
		rootFlag,
		&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "session key, for commands that take one (default: CTXGIT_SESSION, else " + sessionFallback + ")"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON, for commands that read"},
		colorFlag(),
		noPagerFlag(),
	}
}

// hoistGlobalFlags moves flags given before the command name to just after
// it (after the subcommand, for a command with subcommands), where the
// command's own flag set parses them. Anything that is not a flag of that
// command is left where it was, for urfave/cli to refuse.
func hoistGlobalFlags(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	i := 1
	var lead []string
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		name := strings.TrimLeft(args[i], "-")
		if name == "help" || name == "h" || name == "version" || name == "v" || name == "generate-bash-completion" {
			return args // the app's own flags
		}
		lead = append(lead, args[i])
		if !strings.Contains(name, "=") && globalTakesValue(name) && i+1 < len(args) {
			lead = append(lead, args[i+1])
			i++
		}
		i++
	}
	if len(lead) == 0 || i >= len(args) {
		return args
	}
	cmd := findCommand(cmds, args[i])
	if cmd == nil {
		return args
	}
	out := append([]string{}, args[0], args[i])
	rest := args[i+1:]
	if len(rest) > 0 && findCommand(cmd.Subcommands, rest[0]) != nil {
		out, rest = append(out, rest[0]), rest[1:]
	}
	out = append(out, lead...)
	return append(out, rest...)
}

// globalTakesValue says whether a global flag is followed by a value.
func globalTakesValue(name string) bool {
	for _, f := range globalFlags() {
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// unknownCommand is the usage error for a command name ctxgit does not
// have, with the nearest name when one is near enough to be a typo.
func unknownCommand(cmds []*cli.Command, name string, parents ...string) error {
	see := strings.Join(append([]string{"ctxgit help"}, parents...), " ")
	if s := nearestCommand(cmds, name); s != "" {
		return spec.Usage("unknown command %q: did you mean %q? (see %s)", name, s, see)
	}
	return spec.Usage("unknown command %q (see %s)", name, see)
}

// nearestCommand is the visible command name closest to name, within an
// edit per three letters (at least one), or one that name is a prefix of;
// "" when none is that near.
func nearestCommand(cmds []*cli.Command, name string) string {
	var names []string
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" { // "h" is near every one-letter typo
			continue
		}
		names = append(names, c.Names()...)
	}
	return nearestName(names, name)
}

// nearestName is the one of names closest to name, within an edit per
// three letters (at least one), or one that name is a prefix of; "" when
// none is that near. Commands and flags are matched alike.
func nearestName(names []string, name string) string {
	best, bestDist := "", max(1, len(name)/3)+1
	for _, n := range names {
		d := editDistance(name, n)
		if len(name) >= 3 && strings.HasPrefix(n, name) {
			d = 1
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count
// one edit, the commonest typo) between two short words.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// flagStringer is urfave/cli's flag help line without the defaults it
// would print twice: a bool's "(default: false)", and the computed default
// of a flag whose usage already says its default (often a config key).
func flagStringer(orig cli.FlagStringFunc) cli.FlagStringFunc {
	return func(f cli.Flag) string {
		s := orig(f)
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			return s
		}
		_, isBool := f.(*cli.BoolFlag)
		if !isBool && !strings.Contains(df.GetUsage(), "(default") {
			return s
		}
		usage := df.GetUsage()
		at := strings.LastIndex(s, usage)
		if at < 0 {
			return s
		}
		tail := s[at+len(usage):]
		if !strings.HasPrefix(tail, " (default: ") {
			return s
		}
		end := strings.Index(tail, ")")
		return s[:at+len(usage)] + tail[end+1:]
	}
}

func init() {
	cli.FlagStringer = flagStringer(cli.FlagStringer)
}

// examples formats a command's examples for its help's DESCRIPTION.
func examples(lines ...string) string {
	return "Examples:\n  " + strings.Join(lines, "\n  ")
}
