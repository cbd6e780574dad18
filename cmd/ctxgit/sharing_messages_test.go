package main

import (
	"bytes"
	"strings"
	"testing"
)

// A remote's messages are folded, one line each, and a line it never ends
// is cut rather than kept without bound.
func TestRemoteMessages(t *testing.T) {
	var out bytes.Buffer
	a := &app{stderr: &out}
	w := a.remoteMessages()
	w.Write([]byte("hook says\x1b[2J hi\rSTATUS:OK\n"))
	w.Write([]byte(strings.Repeat("y", 10000)))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 3 || lines[0] != "ctxgit: remote: hook says\uFFFD[2J hi" || lines[1] != "ctxgit: remote: STATUS:OK" {
		t.Fatalf("remote messages: %q", out.String())
	}
	for _, l := range lines[2:] {
		if len(l) > maxRemoteLine+len("ctxgit: remote: ") {
			t.Fatalf("a line of %d bytes", len(l))
		}
	}
}
