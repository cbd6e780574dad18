package vcs

import (
	"fmt"
	"os/exec"
	"syscall"

	"github.com/ctxgit/ctxgit/internal/proc"
)

// runGit runs git tied to ctxgit, with its memory bounded unless memory
// is noMemoryLimit. The death signal is SIGTERM: git then removes its
// temporary files and exits, and its helpers see their pipes close.
func runGit(cmd *exec.Cmd, memory uint64) error {
	return proc.RunTied(cmd, syscall.SIGTERM, memory)
}

// Every git child ctxgit runs (gitRemote.runStderr) is bounded three ways
// beside its timeout (docs/design.md, "Transports"): it runs in a process
// group of its own, so stopping it stops ssh or git-remote-https with it;
// it dies with ctxgit even when ctxgit is killed outright; and its memory
// is bounded, because git reads a remote's whole ref advertisement before
// it prints a line of it. The OS-specific parts are gitProcAttr and
// stopGit, in gitproc_*.go, and internal/proc.RunTied, which runGit runs
// git with: the parent-death signal (Linux) or job object (Windows) and
// the memory bound.

// gitMemoryLimit bounds what one git run (and the helpers it starts) may
// allocate: ls-remote holds a ref listing, which ctxgit reads at most
// MaxAdvertisement of anyway; fetch and push index and send packs.
func gitMemoryLimit(command string) uint64 {
	if command == "ls-remote" {
		return lsRemoteMemory
	}
	return transferMemory
}

const (
	lsRemoteMemory = 256 << 20
	transferMemory = 4 << 30
)

// memoryMessage is the error for a git run that hit its memory bound.
func memoryMessage(ep *Endpoint, command string) error {
	return fmt.Errorf("%s: git %s ran out of the %d MiB ctxgit allows it: the remote's answer is too large (an endless ref advertisement?)",
		ep, command, gitMemoryLimit(command)>>20)
}
