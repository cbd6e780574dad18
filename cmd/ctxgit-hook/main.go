// Command ctxgit-hook is the small program `ctxgit init --host` installs
// for the hosts' tool-call events when it is installed beside ctxgit: it
// answers a tool call with nothing to do at the cost of a process start,
// and runs `ctxgit hook HOST EVENT` for everything else (package
// internal/hookpath; docs/PERFORMANCE.md, "The tool-call hook's own binary").
package main

import (
	"os"

	"github.com/ctxgit/ctxgit/internal/hookpath"
)

func main() {
	os.Exit(hookpath.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
