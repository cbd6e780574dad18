package proc

import (
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// runTied: the death signal is sent when the thread that started the
// child exits, not the process: the goroutine stays locked to that
// thread until the child is waited for, so the Go runtime never retires
// it under a running child. The memory bound holds from the child's
// first instruction (boundFromExec).
func runTied(cmd *exec.Cmd, deathSignal syscall.Signal, memory uint64) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = deathSignal
	if memory != 0 {
		boundFromExec(cmd, memory)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Run()
}

// shell sets the memory bound for the program it then becomes.
var shell = "/bin/sh"

// boundFromExec makes cmd start as a shell that lowers its own
// RLIMIT_DATA (`ulimit -d`, in KiB: dash, bash, busybox and the other
// POSIX shells of Linux all take -d) and execs the program in its place:
// the same process, so the program and every process it starts run
// bounded from their first instruction. Setting the bound with prlimit
// once the program had started raced with it: git could start its HTTP
// helper first, and the helper, which holds the ref advertisement, ran
// unbounded. Lowering a limit needs no privilege; where this process is
// already bounded as tightly, the child inherits that and no shell is
// needed. The death signal, the process group and the process id pass
// through exec unchanged. Should the shell not set the bound, it says
// why on stderr and the program is not run.
func boundFromExec(cmd *exec.Cmd, memory uint64) {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err == nil && cur.Cur <= memory {
		return
	}
	script := "ulimit -d " + strconv.FormatUint(memory>>10, 10) + ` && exec "$0" "$@"`
	cmd.Args = append([]string{shell, "-c", script, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = shell
}
