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
	"runtime/debug"
)

func main() {
	tuneGC()
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// tuneGC: ctxgit lives for milliseconds, so collecting garbage is mostly
// wasted work on the hook path. The collector runs only when the heap nears
// a limit that keeps even a first snapshot of a huge tree small. GOGC and
// GOMEMLIMIT, when set, win.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(gcMemoryLimit)
	}
}

// gcMemoryLimit is the heap size at which garbage collection starts. At
// 128 MiB a first snapshot of 100,000 files peaked at 130 MiB, nearly all
// of it garbage (the index decode, file reads, trees decoded at flush);
// at 64 MiB it peaked at 74 MiB in no more time, while no-change and
// 5-changed checkpoints (about 50 MiB) never reach it. 40 MiB is below
// that first snapshot's live heap and doubled its time
// (docs/PERFORMANCE.md, issue 27 item 4).
const gcMemoryLimit = 64 << 20

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if hostFastPath(args, stdin, stdout) {
		return 0
	}
	return newApp(stdin, stdout, stderr).run(args)
}
