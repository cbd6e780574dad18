//go:build !linux

package main

import "os"

// isTerminal approximates a terminal check where ctxgit has no ioctl for
// it: a character device (a terminal, or /dev/null).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
