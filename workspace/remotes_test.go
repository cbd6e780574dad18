package workspace_test

import (
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#fetch: REMOTE/KEY for read commands.
func TestValidateReadSession(t *testing.T) {
	for name, ok := range map[string]bool{
		"default": true, "origin/default": true, "my-fork/s.1": true,
		"origin/": false, "/default": false, "a/b/c": false, "origin/../x": false, "..x/y": false,
	} {
		err := workspace.ValidateReadSession(name)
		if (err == nil) != ok {
			t.Errorf("ValidateReadSession(%q) = %v", name, err)
		}
		if err != nil && spec.ExitCode(err) != spec.ExitUsage {
			t.Errorf("ValidateReadSession(%q): exit %d, want 2", name, spec.ExitCode(err))
		}
	}
}
