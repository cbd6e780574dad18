package main

import (
	"errors"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// vcsExitRules give the vcs package's sentinels their exit codes
// (docs/cli.md#exit-codes). vcs and spec do not import each other, so the
// command layer, which sees both, adds these to spec's own rules.
var vcsExitRules = []spec.ExitRule{
	// A damaged ref or object file is bad input, named, whatever else a
	// caller wrapped it in.
	{Err: vcs.ErrCorrupt, Code: spec.ExitInvalid},
	{Err: vcs.ErrRefConflict, Code: spec.ExitConflict},
	{Err: vcs.ErrUnsupportedRepo, Code: spec.ExitUnsupported},
	{Err: vcs.ErrUnsupportedRemote, Code: spec.ExitUnsupported},
	{Err: vcs.ErrNoGit, Code: spec.ExitUnsupported},
}

// exitCode is the one mapping from a command's error to the process's exit
// status: a command that already said what it had to names its code, and
// every other error is mapped by the sentinel it wraps.
func exitCode(err error) int {
	var ex exitError
	if errors.As(err, &ex) {
		return ex.code
	}
	return spec.ExitCode(err, vcsExitRules...)
}
