package vcs

import (
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// setDeathSignal has the kernel send git SIGTERM when ctxgit dies, even by
// SIGKILL (PR_SET_PDEATHSIG): git then cleans up and exits, and its
// helpers see their pipes close.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }

// runGit runs git with its memory bounded (unless memory is
// noMemoryLimit): RLIMIT_DATA (heap and private
// writable mappings, not the pack files git maps read-only), set with
// prlimit as soon as git has started, before it reads its config and
// starts a remote helper, which inherits it.
//
// The death signal is sent when the thread that started git exits, not
// the process: the goroutine stays locked to that thread until git is
// waited for, so the Go runtime never retires it under a running git.
func runGit(cmd *exec.Cmd, memory uint64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return err
	}
	if memory == noMemoryLimit {
		return cmd.Wait()
	}
	lim := unix.Rlimit{Cur: memory, Max: memory}
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_DATA, &lim, nil); err != nil && err != unix.ESRCH {
		stopGit(cmd)
		cmd.Wait()
		return err
	}
	return cmd.Wait()
}
