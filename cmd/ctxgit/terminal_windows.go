//go:build windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// enableEscapes turns on the console's processing of VT escape sequences
// (Windows 10 and later; Windows Terminal has it on already). An older
// console that refuses gets no progress line rather than raw escapes.
func enableEscapes(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
