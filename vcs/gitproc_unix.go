//go:build linux || darwin

package vcs

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// gitProcAttr puts git in a process group of its own, unless ctxgit runs
// in the foreground of a terminal: there git must stay in the terminal's
// foreground group, or ssh asking for a passphrase or a host key would be
// stopped with SIGTTIN (a background group reading the terminal). In that
// case the terminal itself sends Ctrl-C and hangup to git and its
// helpers, and the death signal (Linux) still ties git to ctxgit.
func gitProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: !terminalForeground()}
}

// terminalForeground reports whether ctxgit's process group is the
// foreground group of the terminal on its stdin or stderr.
func terminalForeground() bool {
	for _, fd := range []int{0, 2} {
		if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pgrp == unix.Getpgrp() {
			return true
		}
	}
	return false
}

// stopGit asks a git run to stop when ctxgit is interrupted or its
// timeout passes: SIGTERM lets git remove its temporary files (its
// tempfile handlers cover SIGTERM) where SIGKILL would leave them in the
// object directory. Sent to git's group, it reaches ssh and the remote
// helpers too. exec's WaitDelay kills git if it does not exit.
func stopGit(cmd *exec.Cmd) error {
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
		if err := unix.Kill(-cmd.Process.Pid, unix.SIGTERM); err == nil {
			return nil
		}
	}
	return cmd.Process.Signal(unix.SIGTERM)
}

// killGroup ends what is left of a finished git run's group (a helper
// that outlived git), where git had a group of its own.
func killGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid && cmd.Process != nil {
		unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
	}
}
