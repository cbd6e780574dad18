package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal: a console on Windows, a tty
// elsewhere (/dev/null is a character device too, so the file mode is not
// enough).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}
