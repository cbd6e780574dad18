package proc

import "time"

// StartTime is when the process with this id started, as this system's
// clock reads it, when the system can say. A lock records when its
// holder took it; a process with the holder's pid that started later is
// another process that reuses the pid, and the holder is gone.
func StartTime(pid int) (time.Time, bool) {
	if pid <= 0 {
		return time.Time{}, false
	}
	return startTime(pid)
}
