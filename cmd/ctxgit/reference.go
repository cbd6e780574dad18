package main

import (
	"fmt"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// exitCodeRows is the exit-code table of docs/cli.md, beside the command
// reference generated from the same binary.
var exitCodeRows = []struct {
	code       int
	name, when string
}{
	{spec.ExitOK, "OK", "success, including \"nothing to recover\" notes"},
	{spec.ExitFailure, "failure", "an I/O or internal failure not caused by input, including output that could not be written"},
	{spec.ExitUsage, "usage", "the command line is wrong: unknown command or flag, wrong argument count, bad session key or checkpoint name"},
	{spec.ExitInvalid, "invalid", "a state file, config or argument is malformed; the message names the file and line"},
	{spec.ExitNotFound, "not found", "no such checkpoint, session or file"},
	{spec.ExitConflict, "conflict", "the workspace lock was held too long, a ref moved under ctxgit, a restore was refused, a push was rejected"},
	{spec.ExitUnsupported, "unsupported", "a repository or remote of a kind ctxgit refuses"},
	{spec.ExitUnhealthy, "unhealthy", "`ctxgit doctor` found problems that remain"},
	{spec.ExitStatusMissingState, "`STATUS:MISSING_STATE`", "`ctxgit status`: no task state"},
	{spec.ExitStatusHalt, "`STATUS:HALT_CONTEXT_LIMIT`", "`ctxgit status`: context pressure is critical; stop"},
	{spec.ExitStatusComplete, "`STATUS:COMPLETE`", "`ctxgit status`: the task is done"},
	{gitNotFoundExit, "git not found", "`ctxgit git` with no `git` installed, as a shell reports a missing command"},
	{spec.ExitInterrupted, "interrupted", "Ctrl-C (SIGINT) or SIGTERM stopped the command before it published anything; stderr says `ctxgit: interrupted`"},
}

// environmentRows is the environment table of docs/cli.md.
var environmentRows = []struct{ name, meaning string }{
	{"CTXGIT_ROOT", "the workspace root when `--root` is not given"},
	{"CTXGIT_SESSION", "the session key when `--session` is not given"},
	{"CTXGIT_NOW", "an RFC 3339 time that fixes the workspace clock (tests, reproducible scripts)"},
	{"CTXGIT_PRESSURE", "the context utilisation (`0.72` or `72%`) when `status` is given no reading"},
	{"NO_COLOR", "when set, output is never coloured"},
	{"GOGC, GOMEMLIMIT", "when either is set, ctxgit leaves Go's garbage collector as configured"},
	{"HOME, XDG_CONFIG_HOME", "where the global git config and ignore file are found"},
}

// cliReference is docs/cli.md: every command's usage, help text, examples
// and options, then the exit codes and the environment, all from the
// command definitions.
func (a *app) cliReference() (string, error) {
	var b strings.Builder
	b.WriteString("<!-- Generated from the command definitions: go test ./cmd/ctxgit -run TestCLIReference -update. Do not edit. -->\n\n")
	b.WriteString("# ctxgit command-line reference\n\n")
	b.WriteString("File formats, refs and rules are in [spec/SPEC.md](../spec/SPEC.md); internals in [design.md](design.md).\n\n")
	a.writeManual(&b)
	return b.String(), nil
}

// manPage is ctxgit(1): the same manual as docs/cli.md, in roff.
func (a *app) manPage() string {
	var b strings.Builder
	b.WriteString("% ctxgit 1\n\n")
	a.writeManual(&b)
	return string(md2man.Render([]byte(b.String())))
}

// writeManual writes the manual's sections in man-page order, in the
// markdown that both docs/cli.md and md2man read.
func (a *app) writeManual(b *strings.Builder) {
	fmt.Fprintf(b, "# NAME\n\nctxgit - %s\n\n", a.cli.Usage)
	fmt.Fprintf(b, "# SYNOPSIS\n\n```\nctxgit [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGUMENTS...]\n```\n\n")
	writeFlags(b, "# GLOBAL OPTIONS", a.cli.VisibleFlags())
	b.WriteString("# COMMANDS\n\n")
	writeCommands(b, a.cli.Commands, nil)
	b.WriteString("# EXIT CODES\n\n| code | name | when |\n| ---: | --- | --- |\n")
	for _, r := range exitCodeRows {
		fmt.Fprintf(b, "| %d | %s | %s |\n", r.code, r.name, r.when)
	}
	b.WriteString("\nHook commands (`ctxgit hook`, `ctxgit statusline`) always exit 0: their errors go to `.ctxgit/local/ctxgit.log`.\n")
	b.WriteString("\n# ENVIRONMENT\n\n| variable | meaning |\n| --- | --- |\n")
	for _, r := range environmentRows {
		fmt.Fprintf(b, "| `%s` | %s |\n", r.name, r.meaning)
	}
}

// writeCommands writes one section per visible command, a subcommand one
// heading level below its parent.
func writeCommands(b *strings.Builder, cmds []*cli.Command, parents []string) {
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		path := append(append([]string{}, parents...), c.Name)
		fmt.Fprintf(b, "%s %s\n\n%s\n\n", strings.Repeat("#", len(path)+1), strings.Join(path, " "), c.Usage)
		fmt.Fprintf(b, "```\n%s\n```\n\n", c.UsageText)
		text, ex, _ := strings.Cut(c.Description, "Examples:\n")
		if text = strings.TrimSpace(text); text != "" {
			b.WriteString(text + "\n\n")
		}
		if ex != "" {
			b.WriteString("Examples:\n\n```\n")
			for _, line := range strings.Split(ex, "\n") {
				b.WriteString(strings.TrimPrefix(line, "  ") + "\n")
			}
			b.WriteString("```\n\n")
		}
		writeFlags(b, "Options:", c.VisibleFlags())
		writeCommands(b, c.Subcommands, path)
	}
}

// writeFlags lists flags under a heading, as the terminal help prints them (same names,
// same defaults), one list item each.
func writeFlags(b *strings.Builder, heading string, flags []cli.Flag) {
	var items []string
	for _, f := range flags {
		names, usage, _ := strings.Cut(cli.FlagStringer(f), "\t")
		if names = strings.TrimSpace(names); names != "--help, -h" {
			items = append(items, fmt.Sprintf("- `%s`: %s\n", names, usage))
		}
	}
	if len(items) > 0 {
		b.WriteString(heading + "\n\n" + strings.Join(items, "") + "\n")
	}
}
