package workspace

import (
	"slices"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// SPEC §8.3: the transcript's failing call is kept only when the failure
// log does not have it yet.
func TestUnloggedToolFailure(t *testing.T) {
	code := 1
	f := &spec.ToolFailure{Tool: "Bash", Target: "go test ./billing/...", ExitCode: &code, Error: "--- FAIL: TestSplit (0.00s)", At: "2026-11-22T10:00:00Z"}
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	noTime := *f
	noTime.At = ""
	tests := []struct {
		name   string
		f      *spec.ToolFailure
		logged []spec.FailureEntry
		kept   bool
	}{
		{"no failure", nil, nil, false},
		{"empty log", f, nil, true},
		{"empty log, no time", &noTime, nil, true},
		{"logged before", f, []spec.FailureEntry{{When: at.Add(-time.Minute), Summary: "flaky network"}}, true},
		{"logged the same second", f, []spec.FailureEntry{{When: at, Summary: "x"}}, false},
		{"logged after", f, []spec.FailureEntry{{When: at.Add(time.Minute), Summary: "x"}}, false},
		{"no time to compare", &noTime, []spec.FailureEntry{{When: at.Add(-time.Hour)}}, false},
		{"the log names the command", f, []spec.FailureEntry{{Body: "Ran go test ./billing/... and it failed"}}, false},
		{"the log names the error", f, []spec.FailureEntry{{Summary: "--- FAIL: TestSplit (0.00s) again"}}, false},
		{"an undated entry about something else", f, []spec.FailureEntry{{Summary: "flaky network"}}, true},
		// SPEC §5.6: a resolved entry still counts as logged, and a
		// resolution since the call means the agent dealt with it.
		{"logged, then resolved", f, []spec.FailureEntry{{When: at, Summary: "x", Resolved: "2026-11-22T10:05:00Z — step 2 marked done", ResolvedAt: at.Add(5 * time.Minute)}}, false},
		{"an older entry resolved since", f, []spec.FailureEntry{
			{When: at.Add(-time.Hour), Summary: "flaky network", ResolvedAt: at.Add(time.Minute), Resolved: "later"},
			{When: at.Add(-time.Minute), Summary: "other"}}, false},
		{"an older entry resolved before", f, []spec.FailureEntry{
			{When: at.Add(-time.Hour), Summary: "flaky network", ResolvedAt: at.Add(-time.Minute), Resolved: "earlier"},
			{When: at.Add(-time.Minute), Summary: "other"}}, true},
	}
	for _, tc := range tests {
		got := unloggedToolFailure(tc.f, tc.logged)
		if (got != nil) != tc.kept {
			t.Errorf("%s: kept = %v, want %v", tc.name, got != nil, tc.kept)
		}
		if got != nil && got == tc.f {
			t.Errorf("%s: the caller's failure is shared, not copied", tc.name)
		}
	}
}

// SPEC §10.1: the failing call is one line: tool, command or path, exit
// status and error line; "exit N, no output" for a silent failure.
func TestToolFailureLine(t *testing.T) {
	one, two := 1, 2
	for _, tc := range []struct {
		f    spec.ToolFailure
		want string
	}{
		{spec.ToolFailure{Tool: "Bash", Target: "go vet ./...", ExitCode: &one, Error: "x.go:1: undefined: y"}, "Bash: go vet ./... — exit 1: x.go:1: undefined: y"},
		{spec.ToolFailure{Tool: "exec_command", Target: "npm test", ExitCode: &two, Error: spec.NoOutput}, "exec_command: npm test — exit 2, no output"},
		{spec.ToolFailure{Tool: "write_file", Target: "gen.go", Error: "EACCES"}, "write_file: gen.go — EACCES"},
		{spec.ToolFailure{Tool: "Edit", Target: "a\nb\u202e", Error: "line1\nline2"}, "Edit: a b\ufffd — line1 line2"},
	} {
		if got := toolFailureLine(&tc.f); got != tc.want {
			t.Errorf("toolFailureLine(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// SPEC §8.3: files_modified_since_previous keeps the edits written after
// the previous checkpoint, and those of unknown time; on a session's
// first checkpoint, all.
func TestModifiedSince(t *testing.T) {
	prev := &spec.Checkpoint{}
	prev.Meta.CreatedAt = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	files := []string{"before.go", "same.go", "after.go", "unknown.go", "bad.go", "short.go"}
	at := []string{"2026-11-22T09:59:59.9Z", "2026-11-22T10:00:00Z", "2026-11-22T10:00:00.001Z", "", "yesterday"}
	if got, want := modifiedSince(files, at, prev), []string{"after.go", "unknown.go", "bad.go", "short.go"}; !slices.Equal(got, want) {
		t.Errorf("since the previous checkpoint: %q, want %q", got, want)
	}
	if got := modifiedSince(files, at, nil); !slices.Equal(got, files) {
		t.Errorf("first checkpoint: %q, want all of %q", got, files)
	}
}
