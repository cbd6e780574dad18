package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestHandOverAsChild: where the process cannot be replaced (Windows, or
// streams that are not the process's own), ctxgit runs the program as a
// child with the command's streams and exits with its code, adding no
// line of its own.
func TestHandOverAsChild(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here to stand in for ctxgit-mcp")
	}
	var stdout, stderr strings.Builder
	err = handOver(sh, []string{"ctxgit-mcp", "-c", "cat; echo 'ctxgit: said by the child' >&2; exit 3"},
		strings.NewReader("request\n"), &stdout, &stderr)
	var ex exitError
	if !errors.As(err, &ex) || ex.code != 3 {
		t.Fatalf("handOver = %v, want exit 3", err)
	}
	if stdout.String() != "request\n" || stderr.String() != "ctxgit: said by the child\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if err := handOver(sh, []string{"ctxgit-mcp", "-c", "exit 0"}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Errorf("a clean exit: %v", err)
	}
}
