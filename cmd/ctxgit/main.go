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
// of it garbage; at 64 MiB, 74 MiB. With that snapshot's live heap cut to
// about 20 MB (issue 27 item 4), 32 MiB keeps it at 44 MiB for some 25
// collections, and no-change and 5-changed checkpoints (27–30 MB
// allocated in all) collect once or not at all. Below its live heap a
// limit makes the collector run without end, capped by the runtime at
// half the CPU (docs/PERFORMANCE.md, "Issue 27 item 4, continued: peak
// memory at 100,000 files").
const gcMemoryLimit = 32 << 20

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if hostFastPath(args, stdin, stdout) {
		return 0
	}
	return newApp(stdin, stdout, stderr).run(args)
}
