package main

import (
	"slices"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#log: --sessions sizes each column to its widest cell and,
// given a width, narrows the title, then the branch, then the host, each
// no further than its minimum.
func TestFitColumns(t *testing.T) {
	table := [][]string{
		{"ID", "TITLE", "HOST", "BRANCH", "CPS", "LAST ACTIVITY"},
		{"7f3c2a10", "a title of exactly thirty-two c", "claude-code", "feature/a-long-branch-name", "12", "5 min ago"},
	}
	shrink := []sessionColumn{{1, 20}, {3, 14}, {2, 11}}
	full := []int{8, 31, 11, 26, 3, 13}
	for _, tc := range []struct {
		width int
		want  []int
	}{
		{0, full},                          // no width: nothing cut
		{200, full},                        // room enough
		{100, []int{8, 29, 11, 26, 3, 13}}, // two too many: the title gives them
		{80, []int{8, 20, 11, 15, 3, 13}},  // the title to its minimum, then the branch
		{40, []int{8, 20, 11, 14, 3, 13}},  // nothing below its minimum
	} {
		if got := fitColumns(table, tc.width, shrink); !slices.Equal(got, tc.want) {
			t.Errorf("width %d: %v, want %v", tc.width, got, tc.want)
		}
	}
}

// A restore's two checkpoints are one line of the log; a safety
// checkpoint alone (the restore stopped before its end) stays itself.
func TestLogRowsRestore(t *testing.T) {
	when := func(time.Time) string { return "t" }
	entries := []workspace.Entry{
		{CheckpointID: "cp_004", Trigger: spec.TriggerRestored, Message: "restored default:cp_001: a.txt"},
		{CheckpointID: "cp_003", Trigger: spec.TriggerRestore, Message: "before restoring default:cp_001: a.txt"},
		{CheckpointID: "cp_002", Trigger: spec.TriggerRestore, Message: "before restoring default:cp_001: b.txt"},
		{CheckpointID: "cp_001", Trigger: spec.TriggerManual},
	}
	var got []string
	for _, r := range logRows(entries, when) {
		got = append(got, r.id+" "+r.trigger+" "+r.subject)
	}
	want := []string{
		"cp_004 restore restored default:cp_001: a.txt · safety checkpoint cp_003",
		"cp_002 pre-restore before restoring default:cp_001: b.txt",
		"cp_001 manual checkpoint taken by hand",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%q\nwant\n%q", got, want)
	}
}
