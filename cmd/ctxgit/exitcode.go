package main

import (
	"errors"

	"github.com/ctxgit/ctxgit/workspace"
)

// exitCode is the one mapping from a command's error to the process's exit
// status: a command that already said what it had to names its code, and
// every other error is mapped by the sentinel it wraps, spec's and vcs's
// alike (workspace.ExitCode).
func exitCode(err error) int {
	var ex exitError
	if errors.As(err, &ex) {
		return ex.code
	}
	return workspace.ExitCode(err)
}
