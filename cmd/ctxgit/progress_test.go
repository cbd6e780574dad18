package main

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// The progress line: the walk, then files and bytes read with the rate.
func TestProgressText(t *testing.T) {
	p := new(vcs.Progress)
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

// No progress where it does not belong: not a terminal (a pipe, a file,
// /dev/null), or --json; the stop function still works.
func TestProgressOnlyOnATerminal(t *testing.T) {
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
	var buf bytes.Buffer
	for _, stderr := range []io.Writer{w, null, &buf} {
		a := &app{stderr: stderr}
		stop := a.startProgress(new(vcs.Progress), false)
		stop()
	}
	w.Close()
	if buf.Len() != 0 {
		t.Errorf("progress written to a buffer: %q", buf.String())
	}
}
