package workspace_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// vcs's sentinels have their exit codes in the same mapping as
// spec's.
func TestExitCodeCoversVCS(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"corrupt ref", fmt.Errorf("reading refs/ctxgit/sessions/x: %w", vcs.ErrCorrupt), spec.ExitInvalid},
		{"corrupt wins over a kind", spec.NotFound("%w", vcs.ErrCorrupt), spec.ExitInvalid},
		{"ref moved", fmt.Errorf("update: %w", vcs.ErrRefConflict), spec.ExitConflict},
		{"unsupported repository", fmt.Errorf("open: %w", vcs.ErrUnsupportedRepo), spec.ExitUnsupported},
		{"unsupported remote", fmt.Errorf("push: %w", vcs.ErrUnsupportedRemote), spec.ExitUnsupported},
		{"no git", fmt.Errorf("fetch: %w", vcs.ErrNoGit), spec.ExitUnsupported},
		{"spec kind", spec.Usage("bad flag"), spec.ExitUsage},
		{"plain", errors.New("disk on fire"), spec.ExitFailure},
		{"none", nil, spec.ExitOK},
	} {
		if got := workspace.ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
