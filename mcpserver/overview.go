package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ctxgit/ctxgit/internal/proc"
	"github.com/ctxgit/ctxgit/internal/sibling"
	"github.com/ctxgit/ctxgit/workspace"
)

// overviewOf is the status tool's answer as ctxgit gives it: `ctxgit
// --json` and `ctxgit` alone, run by program on the call's workspace.
// The overview composes host hook state (hooks that failed or never ran)
// that lives in the command, which this binary does not link; running
// the command itself gives exactly what a person sees, at the cost of
// two process starts per status call, off every hot path.
func overviewOf(program string) func(ctx context.Context, w *workspace.Workspace, session string, named bool) (map[string]any, string, error) {
	return func(ctx context.Context, w *workspace.Workspace, session string, named bool) (map[string]any, string, error) {
		args := []string{"--root", w.Root}
		if named {
			args = append(args, "--session", session)
		}
		data, err := runCtxgit(ctx, program, append([]string{"--json"}, args...))
		if err != nil {
			return nil, "", err
		}
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, "", errors.New("the overview `ctxgit --json` printed is not JSON: " + err.Error())
		}
		text, err := runCtxgit(ctx, program, append([]string{"--color", "never", "--no-pager"}, args...))
		if err != nil {
			return nil, "", err
		}
		return out, string(text), nil
	}
}

// overviewTimeout bounds each ctxgit the status tool runs: a live
// server does not keep one that hangs.
const overviewTimeout = 30 * time.Second

// runCtxgit runs ctxgit with args and returns its stdout; its stdin is
// empty (stdin is the protocol's), and the session is only what args
// name, never the server's CTXGIT_SESSION.
func runCtxgit(ctx context.Context, program string, args []string) ([]byte, error) {
	if program == "" {
		p, err := sibling.Find("ctxgit")
		if err != nil {
			return nil, errors.New("the overview needs ctxgit, which is neither beside " + Program + " nor on PATH: " + err.Error())
		}
		program = p
	}
	ctx, cancel := context.WithTimeout(ctx, overviewTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Env = []string{} // not nil: nil would hand on CTXGIT_SESSION
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CTXGIT_SESSION=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Tied to the server: a server killed outright (a host that ends
	// its MCP servers with SIGKILL) takes ctxgit with it. SIGKILL, not
	// SIGTERM, which ctxgit turns into a cancellation its work sees only
	// at its next check: the overview only reads, nothing is left half
	// done.
	if err := proc.RunTied(cmd, syscall.SIGKILL, 0); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, errors.New("ctxgit did not give the overview within " + overviewTimeout.String())
		}
		if line := strings.TrimSpace(stderr.String()); line != "" {
			line, _, _ = strings.Cut(line, "\n")
			return nil, errors.New(strings.TrimPrefix(line, "ctxgit: "))
		}
		return nil, errors.New("running " + program + " for the overview: " + err.Error())
	}
	return stdout.Bytes(), nil
}
