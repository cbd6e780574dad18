// Package gitcmd runs the user's own git for what ctxgit leaves to it
// (hooks directories, trailers, blame): bounded in time, its first error
// line kept for the message.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Timeout bounds each call: a commit must never wait on ctxgit, and a
// command must never hang on git.
const Timeout = 30 * time.Second

// ErrNoGit is returned when no git is on PATH.
var ErrNoGit = errors.New("git is not on PATH")

// Output runs git -C dir args and returns its standard output.
func Output(ctx context.Context, dir string, args ...string) (string, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return "", ErrNoGit
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return string(out), nil
}
