//go:build !unix && !windows

package detach

import "syscall"

// sysProcAttr: no detaching mechanism known here; the child still has no
// stdio of the parent's and is not waited for.
func sysProcAttr() *syscall.SysProcAttr { return nil }
