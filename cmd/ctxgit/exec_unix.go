//go:build unix

package main

import (
	"errors"
	"syscall"
)

var errNoExec = errors.New("the process cannot be replaced here")

// execProcess replaces this process with prog; it returns only on failure.
func execProcess(prog string, argv, env []string) error {
	return syscall.Exec(prog, argv, env)
}
