package spec

import "errors"

// Exit codes (docs/cli.md#exit-codes). Hook commands always exit 0 except
// where blocking is the documented intent of the call.
const (
	ExitOK          = 0 // success
	ExitFailure     = 1 // an I/O or internal failure not caused by input
	ExitUsage       = 2 // the command line is wrong
	ExitInvalid     = 3 // a state file, config or argument is malformed
	ExitNotFound    = 4 // no such checkpoint, session or file; not initialised
	ExitConflict    = 5 // lock held too long, or a ref moved under us
	ExitUnsupported = 6 // the repository is of a kind ctxgit refuses
	ExitUnhealthy   = 7 // `ctxgit doctor` found problems that remain (docs/cli.md#doctor)

	// The status contract (SPEC §12) has its own codes so a loop can branch
	// on the exit status alone.
	ExitStatusMissingState = 10 // STATUS:MISSING_STATE
	ExitStatusHalt         = 11 // STATUS:HALT_CONTEXT_LIMIT
	ExitStatusComplete     = 12 // STATUS:COMPLETE

	// ExitInterrupted is a command stopped by SIGINT or SIGTERM before it
	// published anything: 128 + SIGINT, as a shell reports it.
	ExitInterrupted = 130
)

// ExitRule gives the errors that wrap Err the exit code Code.
type ExitRule struct {
	Err  error
	Code int
}

// exitRules are the sentinels of this package, in the order they are
// tried.
var exitRules = []ExitRule{
	{ErrUsage, ExitUsage},
	{ErrInvalid, ExitInvalid},
	{ErrNotFound, ExitNotFound},
	{ErrConflict, ExitConflict},
	{ErrUnsupported, ExitUnsupported},
}

// ExitCode maps an error to its exit code by the sentinel it wraps. The
// rules given are tried first: a package that spec cannot import (vcs)
// has sentinels of its own, and the program that sees both passes their
// rules here, so there is one mapping for all of them.
func ExitCode(err error, rules ...ExitRule) int {
	if err == nil {
		return ExitOK
	}
	for _, set := range [][]ExitRule{rules, exitRules} {
		for _, r := range set {
			if errors.Is(err, r.Err) {
				return r.Code
			}
		}
	}
	var fe *FileError
	if errors.As(err, &fe) {
		// A file error with no more specific kind is still bad input.
		return ExitInvalid
	}
	return ExitFailure
}
