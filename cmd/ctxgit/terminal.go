package main

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal that understands the escape
// sequences the progress line uses: a tty (/dev/null is a character
// device too, so the file mode is not enough), or a Windows console once
// it has been switched to process them (terminal_windows.go).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd())) && enableEscapes(f)
}

// termWidth is the width output for people may fill: COLUMNS when it is
// set to a number (as shells export it, and as a test sets it), else the
// terminal's width when stdout is one; 0 when unknown (piped output is
// not cut).
func (a *app) termWidth() int {
	if v, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && v > 0 {
		return v
	}
	if a.tty && a.stdoutFile != nil {
		if w, _, err := term.GetSize(int(a.stdoutFile.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}
