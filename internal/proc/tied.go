package proc

import (
	"os/exec"
	"syscall"
)

// RunTied runs cmd to its end so that it dies with this process, however
// this process ends (killed outright included), where the system can tie
// them: on Linux the kernel sends it deathSignal when this process dies
// (PR_SET_PDEATHSIG); on Windows a job object kills it, and every process
// it started, when the job's last handle closes. macOS has no
// parent-death signal: there it just runs, and the caller's timeout and
// process group are what bound it. memory, when not 0, bounds what the
// child may allocate (Linux: RLIMIT_DATA, in force from its exec on, so
// its children inherit it; Windows: the job's memory, its children's
// included; macOS enforces neither).
func RunTied(cmd *exec.Cmd, deathSignal syscall.Signal, memory uint64) error {
	return runTied(cmd, deathSignal, memory)
}
