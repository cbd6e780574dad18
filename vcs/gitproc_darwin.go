package vcs

import (
	"os/exec"
	"syscall"
)

// setDeathSignal: macOS has no parent-death signal; git's own group is
// what ctxgit stops on an interrupt or a timeout.
func setDeathSignal(*syscall.SysProcAttr) {}

// runGit runs git. macOS cannot set another process's resource limits
// (no prlimit), and does not enforce RLIMIT_DATA or RLIMIT_AS on its own
// allocations: what bounds git there is its timeout, and what bounds
// ctxgit the cap on what it reads of git's output (docs/design.md,
// "Transports").
func runGit(cmd *exec.Cmd, _ uint64) error { return cmd.Run() }
