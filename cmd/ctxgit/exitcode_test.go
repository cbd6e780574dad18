package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// docs/cli.md#exit-codes: vcs's sentinels have their codes in the same mapping
// as spec's, and a command's own exit code wins.
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
		{"command's own code", exitError{code: spec.ExitUnhealthy}, spec.ExitUnhealthy},
		{"wrapped command's own code", fmt.Errorf("x: %w", exitError{code: 127}), 127},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
