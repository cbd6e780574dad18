package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// argSpec names a command's positional arguments, in order: "NAME" is
// required, "NAME?" optional (after the required ones), and a last
// "NAME..." takes any number, none included. The one declaration gives the
// command both its ArgsUsage and its argument-count check (see command), so
// help and check cannot drift.
type argSpec struct {
	names []string
	// tooFew, when set, is the message for too few arguments, for a
	// command whose missing argument deserves more than a count.
	tooFew string
}

// args declares a command's positional arguments by name.
func args(names ...string) argSpec { return argSpec{names: names} }

// orSay is s with its message for too few arguments.
func (s argSpec) orSay(tooFew string) argSpec {
	s.tooFew = tooFew
	return s
}

// bounds is the number of arguments s accepts: max is -1 for any number.
func (s argSpec) bounds() (min, max int) {
	for _, n := range s.names {
		switch {
		case strings.HasSuffix(n, "..."):
			return min, -1
		case strings.HasSuffix(n, "?"):
			max++
		default:
			min++
			max++
		}
	}
	return min, max
}

// usage is the ArgsUsage help prints: optional arguments in brackets,
// nested as each needs the one before it ("[FROM [TO]]").
func (s argSpec) usage() string {
	var b strings.Builder
	open := 0
	for i, n := range s.names {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case strings.HasSuffix(n, "?"):
			b.WriteString("[" + strings.TrimSuffix(n, "?"))
			open++
		case strings.HasSuffix(n, "..."):
			b.WriteString("[" + n)
			open++
		default:
			b.WriteString(n)
		}
	}
	b.WriteString(strings.Repeat("]", open))
	return b.String()
}

// check fails with a usage error when the command was given a number of
// arguments s does not accept.
func (s argSpec) check(c *cli.Context) error {
	n := c.NArg()
	min, max := s.bounds()
	switch {
	case n < min && s.tooFew != "":
		return spec.Usage("%s", s.tooFew)
	case n < min || (max >= 0 && n > max):
		name := commandPath(c)
		return spec.Usage("%s takes %s (see ctxgit %s --help)", name, argCount(min, max), name)
	}
	return nil
}

// commandPath is the running command's name after "ctxgit": a
// subcommand with its parents ("transcript repair"), so the help it
// points to is the right one.
func commandPath(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	if len(names) == 0 {
		return c.Command.Name
	}
	return strings.Join(names, " ")
}

func argCount(min, max int) string {
	switch {
	case max < 0:
		return "at least " + spec.Plural(min, "argument")
	case min == max && min == 0:
		return "no arguments"
	case min == max:
		return spec.Plural(min, "argument")
	}
	return fmt.Sprintf("%d to %d arguments", min, max)
}

// command completes cmd with s: its ArgsUsage, and an Action that checks
// the argument count before anything else runs.
func (s argSpec) command(cmd *cli.Command) *cli.Command {
	cmd.ArgsUsage = s.usage()
	action := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		if err := s.check(c); err != nil {
			return err
		}
		return action(c)
	}
	return cmd
}

// setUsageText spells out each command's usage line, "ctxgit plan mark
// [command options] STEP STATUS", as help prints it from ArgsUsage. Help
// is unchanged; docs/cli.md and the man page, which print UsageText and
// not ArgsUsage, then show every command's arguments too.
func setUsageText(cmds []*cli.Command, parent string) {
	for _, c := range cmds {
		path := parent + " " + c.Name
		if c.UsageText == "" {
			c.UsageText = path + " [command options]"
			if c.ArgsUsage != "" {
				c.UsageText += " " + c.ArgsUsage
			}
		}
		setUsageText(c.Subcommands, path)
	}
}
