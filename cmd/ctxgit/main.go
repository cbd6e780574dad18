// Command ctxgit keeps an AI agent's working state resumable across context
// compaction: state files in the workspace, checkpoints on hidden git refs,
// and a short recovery block after compaction.
//
// This package only parses flags, calls one workspace function per
// command, and formats the result; see package workspace.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).run(args)
}
