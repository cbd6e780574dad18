package main

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/workspace"
)

// The progress line: the walk, then files and bytes read with the rate.
func TestProgressText(t *testing.T) {
	p := new(workspace.Progress)
	p.Scanned.Store(12345)
	if got := progressText(p, time.Second); got != "ctxgit: scanning the workspace: 12345 entries" {
		t.Errorf("scanning: %q", got)
	}
	p.ToHash.Store(5000)
	p.Hashed.Store(1234)
	p.Bytes.Store(3 << 20)
	if got := progressText(p, 2*time.Second); got != "ctxgit: snapshot: 1234 of 5000 files read, 3.0 MiB, 1.5 MiB/s" {
		t.Errorf("hashing: %q", got)
	}
}

// A pipe and /dev/null are not terminals (/dev/null is a character device
// too), so no progress goes to them; on a terminal it does
// (TestProgressOnATerminal).
func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel() // it sleeps past the progress delay
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Fatal("/dev/null taken for a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if isTerminal(w) {
		t.Fatal("a pipe taken for a terminal")
	}
	// Past the delay, a pipe still gets nothing.
	p := new(workspace.Progress)
	p.Scanned.Store(1)
	stop := (&app{stderr: w}).startProgress(p, false)
	time.Sleep(progressDelay + 300*time.Millisecond)
	stop()
	w.Close()
	if got, _ := io.ReadAll(r); len(got) != 0 {
		t.Errorf("progress written to a pipe: %q", got)
	}
}
