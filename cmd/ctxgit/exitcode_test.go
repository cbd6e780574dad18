package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// A command's own exit code wins; every other error goes through the one
// mapping of spec's and vcs's sentinels (whose vcs cases are workspace's
// TestExitCodeCoversVCS).
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"spec kind", spec.Usage("bad flag"), spec.ExitUsage},
		{"wrapped spec kind", fmt.Errorf("x: %w", spec.NotFound("no checkpoint cp_9")), spec.ExitNotFound},
		{"plain", errors.New("disk on fire"), spec.ExitFailure},
		{"command's own code", exitError{code: spec.ExitUnhealthy}, spec.ExitUnhealthy},
		{"wrapped command's own code", fmt.Errorf("x: %w", exitError{code: 127}), 127},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
