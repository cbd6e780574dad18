package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ctxgit/ctxgit/workspace"
)

// progressDelay is how long a command runs before it shows progress: most
// finish well within it and never print a line.
const progressDelay = time.Second

// startProgress shows a snapshot's progress on stderr, rewriting one line,
// once the command has run for progressDelay — only when stderr is a
// terminal and the output is not JSON (hooks never call it). The returned
// function stops it and clears the line.
func (a *app) startProgress(p *workspace.Progress, json bool) (stop func()) {
	f, ok := a.stderr.(*os.File)
	if json || !ok || !isTerminal(f) {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		select {
		case <-quit:
			return
		case <-time.After(progressDelay):
		}
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			fmt.Fprintf(f, "\r\x1b[K%s", progressText(p, time.Since(start)))
			select {
			case <-quit:
				io.WriteString(f, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// progressText is the progress line: the walk while it runs, then files
// and bytes read of those the stat cache missed, with the rate.
func progressText(p *workspace.Progress, elapsed time.Duration) string {
	scanned, toHash, hashed, bytes := p.Scanned.Load(), p.ToHash.Load(), p.Hashed.Load(), p.Bytes.Load()
	if toHash == 0 {
		return fmt.Sprintf("ctxgit: scanning the workspace: %d entries", scanned)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(bytes) / s
	}
	return fmt.Sprintf("ctxgit: snapshot: %d of %d files read, %s, %s/s", hashed, toHash, humanBytes(float64(bytes)), humanBytes(rate))
}

func humanBytes(n float64) string {
	for _, unit := range []string{"B", "KiB", "MiB", "GiB"} {
		if n < 1024 || unit == "GiB" {
			if unit == "B" {
				return fmt.Sprintf("%.0f %s", n, unit)
			}
			return fmt.Sprintf("%.1f %s", n, unit)
		}
		n /= 1024
	}
	return ""
}
