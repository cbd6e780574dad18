package main

import (
	"testing"

	"github.com/ctxgit/ctxgit/workspace"
)

// SPEC §16.1: the COUNTS of the default form, one per way of counting.
func TestLineCounts(t *testing.T) {
	for _, tc := range []struct {
		f    workspace.FileDiff
		want string
	}{
		{workspace.FileDiff{Lines: workspace.LinesCounted, Added: 2, Removed: 1}, "+2 -1"},
		{workspace.FileDiff{Lines: workspace.LinesEstimated, Added: 900, Removed: 40}, "+900 -40 (estimated)"},
		{workspace.FileDiff{Lines: workspace.LinesBinary, OldSize: 3, NewSize: 4}, "binary, 3 → 4 bytes"},
		{workspace.FileDiff{Lines: workspace.LinesTooLarge}, "not counted (over 8 MiB)"},
		{workspace.FileDiff{Lines: workspace.LinesSubmodule, Added: 1, Removed: 1}, "submodule"},
	} {
		if got := lineCounts(tc.f); got != tc.want {
			t.Errorf("lineCounts(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
