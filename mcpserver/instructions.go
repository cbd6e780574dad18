package mcpserver

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// toolWords teaches the server's tools where the CLI's card teaches
// commands.
var toolWords = taskstate.CardWords{
	Mark:       "tool `plan_mark` {step, status}",
	Decide:     "tool `decide` {text, why}",
	Fail:       "tool `fail` {text}; once fixed, tool `fail_resolved`",
	NextAction: "tool `state_set` {field: next_action, value}",
	Recover:    "the tool `recover`",
	Short:      "Tools: `decide` {text, why}, `fail` {text}, `state_set` {field: next_action, value}, `recover`.",
}

// Instructions is the server's onboarding card, what the initialize
// answer gives as instructions: the card `ctxgit init --host` prints and
// the hooks show (taskstate.Card), with the tools in place of the
// commands. Every tool it names is the server's and works as written
// (TestInstructionsTeachTools); it stays within the onboarding card's
// bound.
func Instructions(w *workspace.Workspace) string { return taskstate.Card(w, toolWords) }

// ToolsOnly is the instructions for a client whose hooks show the card
// (Options.CardHooks): the tools that keep what the card describes, in
// one line and without the card, so that the session's first request
// holds one card, the hooks' (docs/HOSTS.md, "MCP server"). Every tool
// it names works as written (TestInstructionsTeachTools).
func ToolsOnly(w *workspace.Workspace) string {
	plan := ""
	if taskstate.HasPlan(w) {
		plan = "tool `plan_mark` {step, status}, "
	}
	return "ctxgit's tools keep the working state its hooks describe: " + plan +
		"tool `decide` {text, why}, tool `fail` {text}, tool `state_set` {field: next_action, value}, tool `recover`.\n"
}

// clientHosts maps an MCP client's clientInfo.name to the host whose hooks
// ctxgit installs: Claude Code 2.1.332 names itself "claude-code", Gemini
// CLI 0.61.0 "gemini-cli-mcp-client", Codex 0.169.0 "codex-mcp-client"
// (each read in the installed host's code). Cursor's name was not found
// in a source: a client not listed gets the card.
var clientHosts = map[string]string{
	"claude-code":           "claude-code",
	"gemini-cli-mcp-client": "gemini",
	"codex-mcp-client":      "codex",
}

// cardMiddleware answers initialize (and the newer protocol's
// server/discover) with ToolsOnly when the client is a host whose hooks in
// this workspace show the card; every other client gets the card.
func (s *Server) cardMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || len(s.opts.CardHooks) == 0 {
			return res, err
		}
		var client *mcp.Implementation
		if ci, ok := req.(interface{ ClientInfo() *mcp.Implementation }); ok {
			client = ci.ClientInfo()
		}
		if client == nil || !slices.Contains(s.opts.CardHooks, clientHosts[client.Name]) {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			r.Instructions = s.toolsOnly
		case *mcp.DiscoverResult:
			r.Instructions = s.toolsOnly
		}
		return res, err
	}
}
