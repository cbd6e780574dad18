//go:build !windows

package main

import (
	"os/exec"
	"strings"
)

// namedPagerCmd runs a pager the person named as git does: through the
// shell when it holds anything the shell would read (a space included),
// else directly.
func namedPagerCmd(name string) *exec.Cmd {
	if strings.ContainsAny(name, "|&;<>()$`\\\"' \t\n*?[#~=%") {
		return exec.Command("/bin/sh", "-c", name)
	}
	return exec.Command(name)
}
