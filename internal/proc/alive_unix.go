//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// alive sends signal 0: no signal, only the existence and permission
// checks. EPERM means the process exists under another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
