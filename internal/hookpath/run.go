package hookpath

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// MaxInput bounds what a hook reads from its host.
const MaxInput = 8 << 20

// inputWait bounds how long a hook waits for its host to finish writing
// the payload: a host that keeps stdin open must not hang the hook.
const inputWait = 2 * time.Second

// ReadInput reads a hook's stdin, refusing more than a hook payload can
// reasonably be, or a payload not finished within inputWait.
func ReadInput(r io.Reader) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, res.err
		}
		if len(res.data) > MaxInput {
			return nil, fmt.Errorf("hook input larger than %d MiB", MaxInput>>20)
		}
		return res.data, nil
	case <-time.After(inputWait):
		// The reader stays blocked; the process exits soon after.
		return nil, fmt.Errorf("hook input not closed within %v", inputWait)
	}
}

// Main is `ctxgit-hook HOST EVENT`: it answers a tool call's steady state
// itself (Steady) and hands every other call, with the same input, to
// `ctxgit hook HOST EVENT`, found beside this program or else on PATH. It
// fails open like `ctxgit hook`: the host sees exit 0 whatever goes wrong.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var input []byte
	var readErr error
	if len(args) == 3 {
		input, readErr = ReadInput(stdin)
		cwd, err := os.Getwd()
		now, ok := clock(os.Getenv)
		if readErr == nil && err == nil && ok && Steady(args[1], args[2], input, os.Getenv, cwd, now) {
			return 0
		}
	}
	if readErr != nil {
		// ctxgit hook logs what reading the input would have told it.
		input = nil
	}
	code, err := runCtxgit(append([]string{"hook"}, args[1:]...), input, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ctxgit-hook: %v\n", err)
		return 0
	}
	return code
}

// ViaEnv is set in the environment of the `ctxgit hook` ctxgit-hook runs:
// that call keeps GaugeFile up to date, which a `ctxgit hook` the host
// runs itself has no use for.
const ViaEnv = "CTXGIT_HOOK_VIA_HOOKPATH"

// clock is the time a hook takes: CTXGIT_NOW (RFC 3339) when set, as
// workspace.DefaultEnv has it; ok is false for a CTXGIT_NOW that does not
// parse, which ctxgit hook reports.
func clock(getenv func(string) string) (time.Time, bool) {
	v := getenv("CTXGIT_NOW")
	if v == "" {
		return time.Now(), true
	}
	t, err := time.Parse(time.RFC3339, v)
	return t, err == nil
}

// runCtxgit runs ctxgit with args and input, passing its output through,
// and returns its exit code.
func runCtxgit(args []string, input []byte, stdout, stderr io.Writer) (int, error) {
	cmd := exec.Command(ctxgitPath(), args...)
	// ctxgit hook keeps GaugeFile for the calls that follow.
	cmd.Env = append(os.Environ(), ViaEnv+"=1")
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}

// ctxgitPath is the ctxgit beside this program, else "ctxgit" on PATH.
func ctxgitPath() string {
	name := "ctxgit"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return "ctxgit"
}
