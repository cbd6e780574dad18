//go:build windows

package detach

import "syscall"

// Windows process creation flags (winbase.h).
const (
	createNewProcessGroup = 0x00000200
	detachedProcess       = 0x00000008
)

// sysProcAttr starts the child in a new process group with no console: a
// Ctrl+C or the console closing in the host does not reach it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: createNewProcessGroup | detachedProcess, HideWindow: true}
}
