//go:build unix

package detach

import "syscall"

// sysProcAttr puts the child in a new session: no controlling terminal,
// not in the hook's process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
