package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// Instructions is the server's onboarding card, what the initialize
// answer gives as instructions: the card `ctxgit init --host` prints and
// the hooks show, with the tools in place of the commands. Every tool it
// names is the server's and works as written (TestInstructionsTeachTools);
// it stays within the onboarding card's bound.
func Instructions(w *workspace.Workspace) string {
	p := w.Config.Paths
	var b strings.Builder
	b.WriteString("# ctxgit keeps this workspace's working state across compaction\n")
	if taskstate.HasPlan(w) {
		fmt.Fprintf(&b, "- Plan: %s (tool `plan_mark` {step, status})\n", p.Plan)
	} else {
		fmt.Fprintf(&b, "- Plan: none yet (one in %s, numbered steps under `## Plan:`, is kept too)\n", p.Plan)
	}
	fmt.Fprintf(&b, "- Decisions: %s (tool `decide` {text, why})\n", p.Decisions)
	fmt.Fprintf(&b, "- Failure log: %s (tool `fail` {text}; once fixed, tool `fail_resolved`)\n", p.FailureLog)
	fmt.Fprintf(&b, "- Next action: %s (tool `state_set` {field: next_action, value})\n", p.TaskState)
	b.WriteString("What is saved there is restored after a compaction; the tool `recover` shows it again.\n")
	card := b.String()
	if len([]rune(card)) > taskstate.MaxOnboardingChars {
		card = "# ctxgit keeps this workspace's working state across compaction\n" +
			"Tools: `decide` {text, why}, `fail` {text}, `state_set` {field: next_action, value}, `recover`.\n" +
			"What is saved with them is restored after a compaction.\n"
	}
	return card
}

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
