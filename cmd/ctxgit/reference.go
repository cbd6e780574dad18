package main

import (
	"fmt"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// exitCodeRows is the exit-code table of docs/cli.md, beside the command
// reference generated from the same binary. It is the one statement of
// what each code means; spec/exitcodes.go holds the numbers.
var exitCodeRows = []struct {
	code       int
	name, when string
}{
	{spec.ExitOK, "OK", "success, including \"nothing to recover\" and \"not injected\" notes"},
	{spec.ExitFailure, "failure", "an I/O or internal failure not caused by input, including output that could not be written (`writing output: …`: a full disk, a closed pipe; not for hook commands)"},
	{spec.ExitUsage, "usage", "the command line is wrong: unknown command or flag, wrong argument count, bad session key, bad checkpoint name, ambiguous id, bad `CTXGIT_NOW`, `--root` not a directory, a negative `--max-age`, text no file can hold (a NUL byte or invalid UTF-8) in an argument ctxgit would write; refused before anything is written"},
	{spec.ExitInvalid, "invalid", "a state file, config or argument is malformed (any error naming a file without a more specific kind; the message names the file and line); a corrupt ref file or `packed-refs` line"},
	{spec.ExitNotFound, "not found", "no such checkpoint, session or file"},
	{spec.ExitConflict, "conflict", "the workspace lock was held past `lock.timeout`, or a ref moved under ctxgit; a restore refused because the safety checkpoint cannot hold a path; a pushed session rejected"},
	{spec.ExitUnsupported, "unsupported", "a repository of a kind ctxgit refuses; a remote whose scheme or server ctxgit cannot speak"},
	{spec.ExitUnhealthy, "unhealthy", "`ctxgit doctor` found problems that remain"},
	{spec.ExitStatusMissingState, "`STATUS:MISSING_STATE`", "`ctxgit status`, `ctxgit ensure`: there is no usable task state"},
	{spec.ExitStatusHalt, "`STATUS:HALT_CONTEXT_LIMIT`", "`ctxgit status`, `ctxgit ensure`: context pressure reached `pressure.critical`, or the session is halted; save state and stop"},
	{spec.ExitStatusComplete, "`STATUS:COMPLETE`", "`ctxgit status`, `ctxgit ensure`: the task state says the task is done"},
	{gitNotFoundExit, "git not found", "`ctxgit git` with no `git` installed, as a shell reports a missing command"},
	{spec.ExitInterrupted, "interrupted", "Ctrl-C (SIGINT) or SIGTERM stopped the command before it published anything; stderr ends with `ctxgit: interrupted`"},
}

// exitCodeRules follow the exit-code table: how an error picks its code,
// where messages go, what an interrupted command leaves, and the hook
// commands' exception.
const exitCodeRules = `An error's code is decided by the kind it wraps, in this order: usage, invalid, not found, conflict, unsupported; an error naming a file (` + "`path:line: …`" + `) without a kind is 3; anything else is 1. A corrupt ref is 3 whatever else it wraps. Every error is one line, ` + "`ctxgit: <message>`" + `, on stderr; notes and warnings (` + "`ctxgit: …`, `ctxgit: warning: …`" + `) go to stderr too and do not change the exit status. Paths inside the workspace are named relative to it. Results go to stdout.

An interrupted command stops before its publishing step (a ref update, a file renamed into place), so the repository and the workspace are as they were before it started or as a finished command leaves them, never in between; it removes its own temporary files and releases its locks. A restore stopped after its safety checkpoint has restored some files whole and left the others untouched, and names that safety checkpoint in a note first.

Hook commands (` + "`ctxgit hook`, `ctxgit statusline`" + `) fail open: they read the host's JSON on stdin, and on any error they write one line to ` + "`.ctxgit/local/ctxgit.log`" + ` (outside a workspace, to the user's log), print nothing and exit 0, so the host goes on. They never block their host (no hook exits 2), are not interrupted as above, answer well inside the host's timeout, and sanitize the host's session ids rather than refuse them.
`

// environmentRows is the environment table of docs/cli.md.
var environmentRows = []struct{ name, meaning string }{
	{"CTXGIT_ROOT", "the workspace root when `--root` is not given"},
	{"CTXGIT_SESSION", "the session key when `--session` is not given; validated as a typed key (a bad one is exit 2), and it counts as a session given (`recover` then does not fall back to the workspace's newest checkpoint)"},
	{"CODEX_THREAD_ID", "set by Codex in the shells it spawns: the session, sanitized, when neither `--session` nor `CTXGIT_SESSION` names one (SPEC §6.3); a read takes it only when it has checkpoints"},
	{"CTXGIT_NOW", "an RFC 3339 time that fixes the workspace clock: checkpoint times, decision and failure timestamps, freshness and model ages (lock times use the real clock); anything else is exit 2. For tests and reproducible scripts"},
	{"CTXGIT_PRESSURE", "the context utilisation (`0.72` or `72%`) when `--pressure` and `--tokens`/`--window` are not given; anything else is exit 2"},
	{"CTXGIT_AGENT_SHELL", "when not empty, the shell is an agent's: `ctxgit status` prints the token form even at a terminal and counts each call as a turn. ctxgit's opencode plugin sets it (`opencode`) for its agent's commands (see status)"},
	{"NO_COLOR", "when not empty, no colour unless `--color=always` asks for it (see GLOBAL OPTIONS)"},
	{"CTXGIT_PAGER, PAGER", "the pager for long output on a terminal, in that order; else `less -FRX`. Empty or `cat`: none (see GLOBAL OPTIONS)"},
	{"LESS, LV", "passed to the pager as set; when unset, `LESS=FRX` and `LV=-c`, as git sets them"},
	{"CTXGIT_TEST_TERMINAL", "`1` makes ctxgit take its stdout for a terminal (colour, pager, relative times). For tests only"},
	{"GOGC, GOMEMLIMIT", "when either is set, ctxgit leaves Go's garbage collector as configured"},
	{"HOME, XDG_CONFIG_HOME", "where the global git config and ignore file are found"},
}

// environmentNote follows the environment table.
const environmentNote = "ctxgit needs no `git` executable (except for `ctxgit git`) and does not read `GIT_DIR`, `GIT_WORK_TREE` or `GIT_INDEX_FILE`.\n"

// cliReference is docs/cli.md: every command's usage, help text, examples
// and options, then the exit codes and the environment, all from the
// command definitions.
func (a *app) cliReference() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from the command definitions: go test ./cmd/ctxgit -run TestCLIReference -update. Do not edit. -->\n\n")
	b.WriteString("# ctxgit command-line reference\n\n")
	b.WriteString("File formats, refs and rules are in [spec/SPEC.md](../spec/SPEC.md); internals in [design.md](design.md).\n\n")
	a.writeManual(&b, 2)
	return b.String()
}

// manPage is ctxgit(1): the same manual as docs/cli.md, in roff. md2man
// makes both "#" and "##" a section (.SH), so the commands go one level
// lower, "###", and become subsections (.SS) of COMMANDS.
func (a *app) manPage() string {
	var b strings.Builder
	b.WriteString("% ctxgit 1\n\n")
	a.writeManual(&b, 3)
	return string(md2man.Render([]byte(b.String())))
}

// writeManual writes the manual's sections in man-page order, in the
// markdown that both docs/cli.md and md2man read; a command's heading is
// at level commandLevel.
func (a *app) writeManual(b *strings.Builder, commandLevel int) {
	fmt.Fprintf(b, "# NAME\n\nctxgit - %s\n\n", a.cli.Usage)
	fmt.Fprintf(b, "# SYNOPSIS\n\n```\nctxgit [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGUMENTS...]\nctxgit [--json] [--session KEY]\n```\n\n")
	fmt.Fprintf(b, "# DESCRIPTION\n\n%s\n\n", helpText("ctxgit"))
	writeFlags(b, "# GLOBAL OPTIONS", a.cli.VisibleFlags())
	b.WriteString("# COMMANDS\n\n")
	writeCommands(b, a.cli.Commands, nil, commandLevel)
	b.WriteString("# EXIT CODES\n\n| code | name | when |\n| ---: | --- | --- |\n")
	for _, r := range exitCodeRows {
		fmt.Fprintf(b, "| %d | %s | %s |\n", r.code, r.name, r.when)
	}
	b.WriteString("\n" + exitCodeRules)
	b.WriteString("\n# ENVIRONMENT\n\n| variable | meaning |\n| --- | --- |\n")
	for _, r := range environmentRows {
		fmt.Fprintf(b, "| `%s` | %s |\n", r.name, r.meaning)
	}
	b.WriteString("\n" + environmentNote)
}

// writeCommands writes one section per visible command, a top-level
// command's heading at level, a subcommand one level below its parent.
func writeCommands(b *strings.Builder, cmds []*cli.Command, parents []string, level int) {
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		path := append(append([]string{}, parents...), c.Name)
		fmt.Fprintf(b, "%s %s\n\n%s\n\n", strings.Repeat("#", level), strings.Join(path, " "), c.Usage)
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
		writeCommands(b, c.Subcommands, path, level+1)
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
