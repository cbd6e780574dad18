package main

import (
	"fmt"
	"strings"

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

// cliReference is docs/cli.md: the command reference urfave/cli generates
// from the command definitions, then the exit codes and the environment.
func (a *app) cliReference() (string, error) {
	md, err := a.cli.ToMarkdown()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("<!-- Generated from the command definitions: go test ./cmd/ctxgit -run TestCLIReference -update. Do not edit. -->\n\n")
	b.WriteString("# ctxgit command-line reference\n\n")
	b.WriteString("File formats, refs and rules are in [spec/SPEC.md](../spec/SPEC.md).\n\n")
	b.WriteString(strings.TrimSpace(md))
	b.WriteString("\n\n# EXIT CODES\n\n| code | name | when |\n| ---: | --- | --- |\n")
	for _, r := range exitCodeRows {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", r.code, r.name, r.when)
	}
	b.WriteString("\nHook commands (`ctxgit hook`, `ctxgit statusline`) always exit 0: their errors go to `.ctxgit/local/ctxgit.log`.\n")
	b.WriteString("\n# ENVIRONMENT\n\n| variable | meaning |\n| --- | --- |\n")
	for _, r := range environmentRows {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.name, r.meaning)
	}
	return b.String(), nil
}
