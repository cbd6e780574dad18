// Command ctxgit-mcp serves `ctxgit mcp`: the workspace's working state
// as Model Context Protocol tools and resources over stdio (package
// mcpserver, docs/cli.md#mcp). ctxgit hands the command over to it once
// it has found the workspace, so the MCP SDK, with the HTTP, TLS and
// OAuth packages it links, is loaded by this program alone and by no
// other command or hook (docs/PERFORMANCE.md, "The MCP server's own
// binary").
package main

import (
	"os"

	"github.com/ctxgit/ctxgit/mcpserver"
)

func main() {
	os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
