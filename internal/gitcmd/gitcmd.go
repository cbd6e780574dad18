// Package gitcmd runs the user's own git for what ctxgit leaves to it
// (hooks directories, trailers, blame): bounded in time, its first error
// line kept for the message.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// Timeout bounds each call: a commit must never wait on ctxgit, and a
// command must never hang on git.
const Timeout = 30 * time.Second

// ErrNoGit is returned when no git is on PATH.
var ErrNoGit = errors.New("git is not on PATH")

// maxStderr bounds what is kept of git's stderr: its first line is the
// message.
const maxStderr = 64 << 10

// Output runs git -C dir args and returns its standard output, for
// commands whose output is small whatever the repository holds (a path,
// a config value).
func Output(ctx context.Context, dir string, args ...string) (string, error) {
	var out bytes.Buffer
	err := Stream(ctx, dir, func(r io.Reader) error {
		_, err := io.Copy(&out, r)
		return err
	}, args...)
	return out.String(), err
}

// Stream runs git -C dir args and hands its standard output to read as
// it comes, for commands whose output grows with what the repository
// holds: git blame prints some 60 bytes per line of the file it blames,
// which held whole made a 4 MB file of a clone cost ctxgit 500 MB. When
// read returns early git is stopped; read's error comes first.
func Stream(ctx context.Context, dir string, read func(io.Reader) error, args ...string) error {
	bin, err := exec.LookPath("git")
	if err != nil {
		return ErrNoGit
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	var stderr capped
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	rerr := read(stdout)
	if rerr != nil {
		cancel()
	} else {
		io.Copy(io.Discard, stdout) // what read left, so git can exit
	}
	werr := cmd.Wait()
	switch {
	case rerr != nil:
		return rerr
	case werr != nil:
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = werr.Error()
		}
		return fmt.Errorf("git %s: %s", args[0], msg)
	}
	return nil
}

// capped keeps the first maxStderr bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxStderr - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
