//go:build !unix

package main

import "testing"

// crashStoppedHolder needs a process stopped and resumed (SIGSTOP,
// SIGCONT), which only Unix has; the lock's judgement of a live holder is
// covered on every system by the workspace tests (TestLock).
func crashStoppedHolder(t *testing.T, _ string) {
	t.Log("stopped-holder round: no SIGSTOP on this system")
}
