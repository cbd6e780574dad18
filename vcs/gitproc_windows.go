package vcs

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// gitProcAttr starts git in a process group of its own
// (CREATE_NEW_PROCESS_GROUP): a console's Ctrl-C then reaches ctxgit,
// which stops git itself, and not git halfway through a ref update.
func gitProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// stopGit stops a git run when ctxgit is interrupted or its timeout
// passes. Windows has no signal to ask a process to clean up and exit, so
// git is killed, as exec.CommandContext does by default; closing its job
// object (runGit, internal/proc.RunTied) ends the helpers it started.
func stopGit(cmd *exec.Cmd) error { return cmd.Process.Kill() }

// killGroup: the job object's close in runGit ends what is left.
func killGroup(*exec.Cmd) {}
