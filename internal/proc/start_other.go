//go:build !linux && !darwin && !windows

package proc

import "time"

// startTime cannot ask this system.
func startTime(int) (time.Time, bool) { return time.Time{}, false }
