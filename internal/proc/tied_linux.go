package proc

import (
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// runTied: the death signal is sent when the thread that started the
// child exits, not the process: the goroutine stays locked to that
// thread until the child is waited for, so the Go runtime never retires
// it under a running child. The memory bound is set with prlimit as
// soon as the child has started, before it reads much or starts a child
// of its own, which inherits it.
func runTied(cmd *exec.Cmd, deathSignal syscall.Signal, memory uint64) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = deathSignal
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return err
	}
	if memory == 0 {
		return cmd.Wait()
	}
	lim := unix.Rlimit{Cur: memory, Max: memory}
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_DATA, &lim, nil); err != nil && err != unix.ESRCH {
		cmd.Process.Signal(deathSignal)
		cmd.Wait()
		return err
	}
	return cmd.Wait()
}
