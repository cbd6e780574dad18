package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal that understands the escape
// sequences the progress line uses: a tty (/dev/null is a character
// device too, so the file mode is not enough), or a Windows console once
// it has been switched to process them (terminal_windows.go).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd())) && enableEscapes(f)
}
