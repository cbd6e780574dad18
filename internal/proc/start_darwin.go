//go:build darwin

package proc

import (
	"time"

	"golang.org/x/sys/unix"
)

// startTime asks the kernel for the process's kinfo_proc (sysctl
// kern.proc.pid), which records its start.
func startTime(pid int) (time.Time, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return time.Time{}, false
	}
	tv := kp.Proc.P_starttime
	return time.Unix(int64(tv.Sec), int64(tv.Usec)*1000), true
}
