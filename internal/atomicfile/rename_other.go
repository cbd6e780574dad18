//go:build !windows

package atomicfile

// heldOpen is never true: a POSIX rename does not care who has the file
// open.
func heldOpen(error, string) bool { return false }

// beingReplaced is never true: a POSIX rename leaves a reader the old
// file or the new one.
func beingReplaced(error) bool { return false }
