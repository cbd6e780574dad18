//go:build !windows

package atomicfile

// heldOpen is never true: a POSIX rename does not care who has the file
// open.
func heldOpen(error, string) bool { return false }
