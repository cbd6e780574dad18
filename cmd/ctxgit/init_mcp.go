package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	hostconfig "github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// installFor installs (or removes) what init --host names for each host:
// its hooks, or with --mcp the MCP server in its MCP config
// (docs/cli.md#init).
func (a *app) installFor(c *cli.Context, w *workspace.Workspace, hosts []string, uninstall bool) ([]*hostconfig.Result, error) {
	if !c.Bool("mcp") {
		return a.installHosts(w, hosts, c.Bool("local"), uninstall, c.Bool("json"))
	}
	if c.Bool("local") {
		return nil, spec.Usage("--local is for Claude Code's hooks; the MCP server goes to .mcp.json")
	}
	var results []*hostconfig.Result
	program := hookProgram()
	for _, name := range hosts {
		h, err := hostconfig.ParseHost(name)
		if err != nil {
			return nil, spec.Usage("%v", err)
		}
		res, err := hostconfig.InstallMCP(hostconfig.Options{Root: w.Root, Host: h, Uninstall: uninstall, Program: program, Now: w.Env.Now})
		if err != nil {
			return nil, err
		}
		results = append(results, res)
		if c.Bool("json") {
			continue
		}
		did := "added the MCP server to"
		if uninstall {
			did = "removed the MCP server from"
		}
		a.printInstalled(h, res, did)
	}
	return results, nil
}

// printMCPSnippet answers `init --mcp` with no --host: the server's entry
// for a host ctxgit writes no config for, to add by hand.
func (a *app) printMCPSnippet(c *cli.Context, hosts []string) {
	if !c.Bool("mcp") || len(hosts) > 0 || c.Bool("json") {
		return
	}
	fmt.Fprintln(a.stdout, "\nto serve this workspace to an MCP host, add to its MCP config (most take this form):")
	for _, l := range strings.Split(strings.TrimRight(hostconfig.MCPSnippet(hookProgram()), "\n"), "\n") {
		fmt.Fprintln(a.stdout, "  "+l)
	}
	fmt.Fprintln(a.stdout, "ctxgit init --host claude-code|codex|gemini|cursor --mcp writes it for those hosts")
}
