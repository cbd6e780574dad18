//go:build unix

package vcs

import (
	"os"
	"syscall"
)

// stopGit asks a git run to stop when ctxgit is interrupted or its
// timeout passes: SIGTERM lets git remove its temporary files (its
// tempfile handlers cover SIGTERM) where SIGKILL would leave them in the
// object directory. exec's WaitDelay kills it if it does not exit.
func stopGit(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
