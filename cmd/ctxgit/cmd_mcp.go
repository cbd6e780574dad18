package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	hostconfig "github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/internal/sibling"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// mcpProgram is the companion binary that serves `ctxgit mcp`
// (cmd/ctxgit-mcp, mcpserver.Program). ctxgit does not link the MCP SDK:
// its package initialisation and size would be paid by every command and
// hook (TestCtxgitLinksNoMCP; docs/PERFORMANCE.md, "The MCP server's own
// binary").
const mcpProgram = "ctxgit-mcp"

// mcpCommand is `ctxgit mcp` (docs/cli.md#mcp): it finds the workspace and
// checks the session as every command does, so those refusals are
// ctxgit's own, then hands the process over to ctxgit-mcp.
func (a *app) mcpCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "mcp",
		Usage: "serve the workspace's state as Model Context Protocol tools and resources over stdio",
		Flags: []cli.Flag{rootFlag, sessionFlag()},
		Action: func(c *cli.Context) error {
			env, err := workspace.DefaultEnv()
			if err != nil {
				return err
			}
			root, err := workspace.FindRoot(env, c.String("root"))
			if err != nil {
				return err
			}
			argv := []string{mcpProgram, "--root", root, "--server-version", buildInfo().SemVer()}
			// A bad session is refused here, before anything is served.
			if sess := c.String("session"); c.IsSet("session") && sess != "" {
				if err := workspace.ValidateReadSession(sess); err != nil {
					return fmt.Errorf("CTXGIT_SESSION: %w", err)
				}
				argv = append(argv, "--session", sess)
			}
			// Every refusal of a workspace is ctxgit's, before the server
			// is looked for.
			if _, err := workspace.Open(env, root); err != nil {
				return err
			}
			if self, err := executable(); err == nil {
				argv = append(argv, "--ctxgit", self)
			}
			// The hosts whose hooks here show the onboarding card: a
			// client that is one of them gets the tools without the card,
			// so its session holds one (docs/HOSTS.md, "MCP server").
			var hosts []string
			for _, h := range hostconfig.CardHosts(root) {
				hosts = append(hosts, string(h))
			}
			if len(hosts) > 0 {
				argv = append(argv, "--card-hooks", strings.Join(hosts, ","))
			}
			prog, err := sibling.FindFrom(mcpProgram, executable)
			if errors.Is(err, sibling.ErrNotFound) {
				return spec.NotFound("mcp needs %s, which is neither beside ctxgit nor on PATH: install it with ctxgit (go install ./cmd/...)", mcpProgram)
			}
			if err != nil {
				return err
			}
			// Stdout as the file it is, so the process can be replaced.
			var stdout io.Writer = a.stdout
			if a.stdoutFile != nil {
				stdout = a.stdoutFile
			}
			return handOver(prog, argv, a.stdin, stdout, a.stderr)
		},
	})
}

// handOver runs prog with argv and the command's streams, and ends
// ctxgit with its exit code. Where the OS can replace the process
// (execProcess), it does: the host's signals and the process id are
// then the server's, and no ctxgit waits beside it.
func handOver(prog string, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if stdin == os.Stdin && stdout == os.Stdout && stderr == os.Stderr {
		if err := execProcess(prog, argv, os.Environ()); !errors.Is(err, errNoExec) {
			return fmt.Errorf("running %s: %w", prog, err)
		}
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		// ctxgit-mcp said why on stderr itself.
		return exitError{code: exit.ExitCode()}
	}
	return err
}
