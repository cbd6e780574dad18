//go:build !linux && !windows

package proc

import (
	"os/exec"
	"syscall"
)

// runTied: no parent-death signal and no memory bound this system
// enforces on another process (macOS has no prlimit, and ignores
// RLIMIT_DATA and RLIMIT_AS).
func runTied(cmd *exec.Cmd, _ syscall.Signal, _ uint64) error { return cmd.Run() }
