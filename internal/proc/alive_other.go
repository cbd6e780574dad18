//go:build !unix && !windows

package proc

// alive cannot ask this system: every process counts as alive.
func alive(int) bool { return true }
