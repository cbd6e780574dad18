package main

import (
	"testing"

	"github.com/ctxgit/ctxgit/review"
)

// docs/cli.md#diff: the COUNTS of the default form, one per way of counting.
func TestLineCounts(t *testing.T) {
	for _, tc := range []struct {
		f    review.FileDiff
		want string
	}{
		{review.FileDiff{Lines: review.LinesCounted, Added: 2, Removed: 1}, "+2 -1"},
		{review.FileDiff{Lines: review.LinesEstimated, Added: 900, Removed: 40}, "+900 -40 (estimated)"},
		{review.FileDiff{Lines: review.LinesBinary, OldSize: 3, NewSize: 4}, "binary, 3 → 4 bytes"},
		{review.FileDiff{Lines: review.LinesTooLarge}, "not counted (over 8 MiB)"},
		{review.FileDiff{Lines: review.LinesSubmodule, Added: 1, Removed: 1}, "submodule"},
	} {
		if got := lineCounts(tc.f); got != tc.want {
			t.Errorf("lineCounts(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
