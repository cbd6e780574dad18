// Package detach starts a process that outlives its parent: a hook hands
// long work (a first snapshot of a large repository, the base checkpoint
// at session start, the session-end checkpoint) to it and returns to its
// host at once (docs/HOSTS.md, "Events", "Budgets").
//
// The child gets no stdin, stdout or stderr of the parent (the host waits
// for those pipes to close) and its own session or process group, so the
// host's end of the hook — a timeout that kills the hook's group, a
// terminal hanging up — does not reach it.
package detach

import (
	"errors"
	"os"
	"os/exec"
)

// Start runs name with args in dir, detached, with env as its whole
// environment (nil: the parent's). It returns once the child started; the
// child is not waited for.
func Start(name string, args []string, dir string, env []string) error {
	if name == "" {
		return errors.New("detach: no program")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	// Not waited for: released, so no zombie is kept for it here and the
	// parent may exit first.
	return cmd.Process.Release()
}
