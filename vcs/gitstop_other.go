//go:build !unix

package vcs

import "os"

// stopGit stops a git run when ctxgit is interrupted or its timeout
// passes. Windows has no signal to ask a process to clean up and exit, so
// git is killed, as exec.CommandContext does by default.
func stopGit(p *os.Process) error { return p.Kill() }
