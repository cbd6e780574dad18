package hooks

import (
	"testing"

	"github.com/ctxgit/ctxgit/workspace"
)

// docs/HOSTS.md, "Claude Code": the SessionEnd budget is the entry's
// timeout (ctxgit installs 30 s) unless CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS
// replaces it; from 10 s the checkpoint is taken inline.
func TestSessionEndInline(t *testing.T) {
	for _, tc := range []struct {
		host, env string
		want      bool
	}{
		{"claude-code", "", true},
		{"claude-code", "1500", false},
		{"claude-code", "9999", false},
		{"claude-code", "10000", true},
		{"claude-code", " 60000 ", true},
		{"claude-code", "soon", false},
		{"claude-code", "-5", false},
		{"codex", "", false},
		{"cursor", "", false},
	} {
		env := workspace.Env{Getenv: func(k string) string {
			if k == "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS" {
				return tc.env
			}
			return ""
		}}
		c := &call{Request: Request{Host: tc.host, Event: "session-end", Env: env}}
		if got := c.sessionEndInline(); got != tc.want {
			t.Errorf("%s with CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=%q: inline %v, want %v", tc.host, tc.env, got, tc.want)
		}
	}
}
