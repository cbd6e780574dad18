package mcpserver

import (
	"regexp"
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

// teachesTools checks that the tools instructions name exist and work
// with the arguments shown.
func teachesTools(t *testing.T, c *client, instructions string) {
	t.Helper()
	args := map[string]any{
		"plan_mark": map[string]any{"step": "2", "status": "done"},
		"decide":    map[string]any{"text": "a", "why": "b"},
		"fail":      map[string]any{"text": "c"},
		"state_set": map[string]any{"field": "next_action", "value": "d"},
		"recover":   nil,
	}
	named := 0
	for _, m := range regexp.MustCompile("tool `([a-z_]+)`").FindAllStringSubmatch(instructions, -1) {
		a, ok := args[m[1]]
		if !ok {
			t.Errorf("instructions name %s, which this test does not run:\n%s", m[1], instructions)
			continue
		}
		c.ok(m[1], a)
		named++
	}
	if named != len(args) {
		t.Errorf("instructions name %d of the %d tools:\n%s", named, len(args), instructions)
	}
}
