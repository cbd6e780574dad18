package mcpserver

import (
	"slices"
	"strings"
	"testing"
)

const cardHeading = "# ctxgit keeps this workspace's working state across compaction"

// TestOneCardPerSession (docs/HOSTS.md, "MCP server"): a client that is a
// host whose hooks here show the onboarding card gets the tools without
// the card; any other client, or one whose host's hooks are not here,
// gets the card, its only one.
func TestOneCardPerSession(t *testing.T) {
	dir, env := newWorkspace(t)
	for _, tc := range []struct {
		client string
		hooks  []string
		card   bool
	}{
		{"claude-code", []string{"claude-code"}, false},
		{"gemini-cli-mcp-client", []string{"codex", "gemini"}, false},
		{"codex-mcp-client", []string{"codex"}, false},
		{"claude-code", []string{"gemini"}, true},
		{"claude-code", nil, true},
		{"some-other-client", []string{"claude-code", "gemini", "codex", "cursor"}, true},
	} {
		c := connectAs(t, Options{Root: dir, Env: env, Version: "test", CardHooks: tc.hooks}, tc.client)
		got := c.cs.InitializeResult().Instructions
		if strings.Contains(got, cardHeading) != tc.card {
			t.Errorf("client %s, hooks %v: card %v, want %v:\n%s", tc.client, tc.hooks, !tc.card, tc.card, got)
		}
		if !tc.card {
			teachesTools(t, c, got)
		}
	}
}

// teachesTools checks that the tools-only instructions name the tools
// that keep the working state, each working with the arguments shown.
func teachesTools(t *testing.T, c *client, instructions string) {
	t.Helper()
	names := callNamedTools(t, c, instructions)
	slices.Sort(names)
	if want := []string{"decide", "fail", "plan_mark", "recover", "state_set"}; !slices.Equal(names, want) {
		t.Errorf("instructions name the tools %v, want %v:\n%s", names, want, instructions)
	}
}
