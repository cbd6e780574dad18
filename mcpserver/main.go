package mcpserver

import (
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// Program is the name of the binary that serves `ctxgit mcp`
// (cmd/ctxgit-mcp), installed beside ctxgit. The SDK lives in it alone:
// linked into ctxgit, its package initialisation (net/http, crypto/tls,
// OAuth, JSON Schema) and its 9 MB would be paid by every command and
// every hook (docs/PERFORMANCE.md, "The MCP server's own binary").
const Program = "ctxgit-mcp"

// Main is the ctxgit-mcp program: `ctxgit mcp` hands its process over to
// it once it has found the workspace and checked the session, with
//
//	ctxgit-mcp [--root DIR] [--session KEY] [--ctxgit PATH] [--server-version V] [--card-hooks HOSTS]
//
// --ctxgit is the ctxgit whose overview the status tool gives (default:
// the one beside this program, else on PATH), --server-version the
// version the initialize answer names (default this build's),
// --card-hooks the hosts whose hooks show the onboarding card in this
// workspace (Options.CardHooks). Errors are
// ctxgit's: one line `ctxgit: …` on stderr and its exit codes
// (docs/cli.md#mcp). It returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(Program, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", "", "workspace root")
	session := fs.String("session", "", "session key")
	ctxgit := fs.String("ctxgit", "", "the ctxgit program the status tool runs")
	version := fs.String("server-version", "", "the version the initialize answer names")
	cardHooks := fs.String("card-hooks", "", "the hosts whose hooks show the onboarding card, comma-separated")
	if err := fs.Parse(args[1:]); err != nil {
		return fail(stderr, spec.Usage("%s: %v", Program, err))
	}
	if fs.NArg() > 0 {
		return fail(stderr, spec.Usage("mcp takes no arguments"))
	}
	env, err := workspace.DefaultEnv()
	if err != nil {
		return fail(stderr, err)
	}
	found, err := workspace.FindRoot(env, *root)
	if err != nil {
		return fail(stderr, err)
	}
	if *version == "" {
		*version = buildVersion()
	}
	var hosts []string
	if *cardHooks != "" {
		hosts = strings.Split(*cardHooks, ",")
	}
	s, err := New(Options{Root: found, Env: env, Session: *session, Version: *version, Overview: overviewOf(*ctxgit), CardHooks: hosts})
	if err != nil {
		return fail(stderr, err)
	}
	// Ctrl-C, or the host's SIGTERM, ends the server cleanly (exit 0),
	// as it ended `ctxgit mcp` when the server ran inside ctxgit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The protocol's messages go to stdout and nothing else does.
	if err := s.ServeIO(ctx, stdin, stdout); err != nil {
		return fail(stderr, err)
	}
	return spec.ExitOK
}

// fail prints err as ctxgit's one stderr line and returns its exit code.
func fail(stderr io.Writer, err error) int {
	io.WriteString(stderr, "ctxgit: "+safetext.Line(err.Error())+"\n")
	return workspace.ExitCode(err)
}

// buildVersion is this build's module version, for a ctxgit-mcp started
// without --server-version.
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "dev"
}
