package spec

import "errors"

// Exit codes (SPEC §13). Hook commands always exit 0 except where blocking is
// the documented intent of the call.
const (
	ExitOK          = 0 // success
	ExitFailure     = 1 // an I/O or internal failure not caused by input
	ExitUsage       = 2 // the command line is wrong
	ExitInvalid     = 3 // a state file, config or argument is malformed
	ExitNotFound    = 4 // no such checkpoint, session or file; not initialised
	ExitConflict    = 5 // lock held too long, or a ref moved under us
	ExitUnsupported = 6 // the repository is of a kind ctxgit refuses
	ExitUnhealthy   = 7 // `ctxgit doctor` found problems that remain (SPEC §18.6)

	// The status contract (SPEC §12) has its own codes so a loop can branch
	// on the exit status alone.
	ExitStatusMissingState = 10 // STATUS:MISSING_STATE
	ExitStatusHalt         = 11 // STATUS:HALT_CONTEXT_LIMIT
	ExitStatusComplete     = 12 // STATUS:COMPLETE
)

// ExitCode maps an error to its exit code by the sentinel it wraps.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrUsage):
		return ExitUsage
	case errors.Is(err, ErrInvalid):
		return ExitInvalid
	case errors.Is(err, ErrNotFound):
		return ExitNotFound
	case errors.Is(err, ErrConflict):
		return ExitConflict
	case errors.Is(err, ErrUnsupported):
		return ExitUnsupported
	}
	var fe *FileError
	if errors.As(err, &fe) {
		// A file error with no more specific kind is still bad input.
		return ExitInvalid
	}
	return ExitFailure
}
