//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// childPeakRSS is a finished process's peak resident memory in bytes:
// getrusage's ru_maxrss, which Linux and the BSDs count in KiB and macOS
// in bytes.
func childPeakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true
	}
	return int64(ru.Maxrss) << 10, true
}
