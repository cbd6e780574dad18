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

	"github.com/ctxgit/ctxgit/internal/gcpolicy"
)

func main() {
	gcpolicy.Start(gcBaseLimit)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// gcBaseLimit is the heap size below which the collector does not run:
// ctxgit lives for milliseconds, so collecting garbage is mostly wasted
// work on the hook path, and no-change and 5-changed checkpoints of
// 100,000 files allocate less. The limit then follows what the process
// holds (internal/gcpolicy): the stat cache a snapshot reads, and twice
// the live heap after any collection, so a large workspace is never
// stuck collecting below its live heap, as it was under a fixed limit
// (docs/PERFORMANCE.md). GOGC and GOMEMLIMIT, when set, win.
const gcBaseLimit = 32 << 20

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if hostFastPath(args, stdin, stdout) {
		return 0
	}
	return newApp(stdin, stdout, stderr).run(args)
}
