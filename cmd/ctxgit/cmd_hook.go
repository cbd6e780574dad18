package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/host/hooks"
	"github.com/ctxgit/ctxgit/internal/detach"
	"github.com/ctxgit/ctxgit/workspace"
)

// hookCommand answers agent hosts. It fails open: whatever goes wrong is
// one line in .ctxgit/local/ctxgit.log, and the host sees exit 0 and no
// output (docs/cli.md#hook); it never exits 2, which would block the host.
func (a *app) hookCommand() *cli.Command {
	var hosts []string
	for h := range hooks.Events {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	return &cli.Command{
		Name:      "hook",
		Usage:     "answer a host's hook call (HOST: " + strings.Join(hosts, ", ") + ")",
		ArgsUsage: "HOST EVENT",
		Flags: []cli.Flag{rootFlag,
			&cli.BoolFlag{Name: "write", Usage: "OpenClaw bootstrap: write CONTEXT_RECOVERY.md instead of printing"},
			// The detached child of a hook (docs/cli.md#hook): its work, from
			// a file.
			&cli.StringFlag{Name: "job", Hidden: true}},
		Action: func(c *cli.Context) error {
			return a.failOpen(c, c.Args().Get(0), c.Args().Get(1), func(req hooks.Request) error {
				if c.NArg() != 2 {
					return fmt.Errorf("hook takes HOST EVENT, got %d arguments", c.NArg())
				}
				return hooks.Handle(req)
			})
		},
	}
}

// failOpen runs a host-facing command: errors and panics are logged, never
// reported to the host.
func (a *app) failOpen(c *cli.Context, host, event string, run func(hooks.Request) error) error {
	hostCall{stdin: a.stdin, out: a.out.w, root: c.String("root"), write: c.Bool("write"), job: c.String("job")}.run(host, event, run)
	return nil
}

// hostCall is a host-facing command's input: its stdin, the host's own
// stdout (not the command's error-remembering one: a host that stopped
// reading is logged like any hook error) and its flags.
type hostCall struct {
	stdin io.Reader
	out   io.Writer
	root  string
	write bool
	job   string
}

// run runs a host-facing command and fails open: whatever goes wrong is
// logged, the host sees nothing.
func (h hostCall) run(host, event string, run func(hooks.Request) error) {
	// A host that closed its end of stdout must see exit 0, not a death by
	// SIGPIPE (which would also leave the workspace lock behind): writes
	// then fail with EPIPE and are logged.
	signal.Ignore(syscall.SIGPIPE)
	env, envErr := workspace.DefaultEnv()
	if env.Now == nil {
		return // no working directory: nowhere to log
	}
	req := hooks.Request{Host: host, Event: event, Env: env, Root: h.root, Write: h.write, Out: h.out,
		Job: h.job, Spawn: spawnSelf}
	defer func() {
		if r := recover(); r != nil {
			hooks.LogError(req, fmt.Errorf("panic: %v", r))
		}
	}()
	var err error
	if req.Job == "" {
		req.Input, err = hooks.ReadInput(h.stdin)
	}
	if err == nil {
		// A bad CTXGIT_NOW is not the host's problem: logged, not run.
		err = envErr
	}
	if err == nil {
		err = run(req)
	}
	if err != nil {
		hooks.LogError(req, err)
	}
}

// hostFastPath answers the two commands hosts run on every tool call and
// every turn — `ctxgit hook HOST EVENT` and `ctxgit statusline`, exactly
// as init --host writes them, without flags — before the command-line
// app is built: building it (some thirty commands and their flags) costs
// more than the hook's own work (docs/PERFORMANCE.md, "Cost per tool
// call"). Anything else, flags included, goes through the app. It reports
// whether it answered; a host-facing command always exits 0.
func hostFastPath(args []string, stdin io.Reader, stdout io.Writer) bool {
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			return false
		}
	}
	h := hostCall{stdin: stdin, out: stdout}
	switch {
	case len(args) == 4 && args[1] == "hook":
		h.run(args[2], args[3], hooks.Handle)
	case len(args) == 2 && args[1] == "statusline":
		h.run("claude-code", "statusline", hooks.Statusline)
	default:
		return false
	}
	return true
}

// spawnSelf starts this ctxgit, detached, with args: the program as it was
// invoked (found on PATH, or made absolute), so a wrapper or a test's
// dispatch by name runs it the same way; else the running executable.
func spawnSelf(args []string) error {
	return detach.Start(selfProgram(), args, "", nil)
}

// selfProgram is this ctxgit as it was invoked: found on PATH, or made
// absolute; else the running executable.
func selfProgram() string {
	exe := os.Args[0]
	if filepath.Base(exe) == exe {
		if p, err := exec.LookPath(exe); err == nil {
			exe = p
		} else if p, err := executable(); err == nil {
			exe = p
		}
	} else if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	return exe
}
