//go:build windows

package main

import (
	"os/exec"
	"strings"
)

// namedPagerCmd runs a pager the person named: its first word is the
// program, the rest its arguments (Windows has no /bin/sh to read more).
func namedPagerCmd(name string) *exec.Cmd {
	f := strings.Fields(name)
	return exec.Command(f[0], f[1:]...)
}
