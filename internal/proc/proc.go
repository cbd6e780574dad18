// Package proc tells whether a process is still running, for judging a
// lock whose holder may have died, and runs a child that dies with this
// process (RunTied).
package proc

// Alive reports whether a process with this id exists on this machine. It
// errs on the side of alive: a process it may not inspect is alive, and
// where the system gives no answer, every process is (the caller's age
// rule then decides).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	return alive(pid)
}
