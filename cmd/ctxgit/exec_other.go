//go:build !unix

package main

import "errors"

var errNoExec = errors.New("the process cannot be replaced here")

// execProcess cannot replace the process here (Windows has no exec):
// handOver runs the program as a child instead.
func execProcess(prog string, argv, env []string) error { return errNoExec }
