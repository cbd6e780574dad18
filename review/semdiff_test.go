package review

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// steps builds a plan from "NUMBER NAME STATUS" strings.
func steps(list ...string) *spec.Plan {
	p := &spec.Plan{}
	for _, s := range list {
		f := strings.SplitN(s, " ", 3)
		p.Steps = append(p.Steps, spec.Step{Number: f[0], Name: f[1], Status: spec.StepStatus(f[2])})
	}
	return p
}

func stepLines(pd PlanDiff) string {
	var out []string
	for _, s := range pd.Steps {
		out = append(out, StepChangeText(s))
	}
	return strings.Join(out, "\n")
}

// docs/cli.md#diff: steps are matched by number and name, then by name alone
// (renumbered), then by number alone (renamed); the rest are added or
// removed.
func TestComparePlans(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b *spec.Plan
		want string
	}{
		{"no plan either side", nil, nil, ""},
		{"unchanged", steps("1 Read done", "2 Write pending"), steps("1 Read done", "2 Write pending"), ""},
		{"transitions", steps("1 Read in_progress", "2 Write pending", "3 Stream pending"),
			steps("1 Read done", "2 Write in_progress", "3 Stream failed"),
			"1. Read: in_progress → done\n2. Write: pending → in_progress\n3. Stream: pending → failed"},
		{"renumbered keeps its identity", steps("4 Document pending"), steps("5 Document pending"),
			"5. Document (was step 4)"},
		{"renamed keeps its identity", steps("2 Write pending"), steps("2 Encode done"),
			"2. Encode: pending → done (was 2. Write)"},
		{"added and removed", steps("1 Read done", "5 Celebrate pending"), steps("1 Read done", "3b Page pending"),
			"3b. Page: added (pending)\n5. Celebrate: removed (was pending)"},
		{"a whole new plan", nil, steps("1 Read pending"), "1. Read: added (pending)"},
		{"the plan went away", steps("1 Read done"), nil, "1. Read: removed (was done)"},
		{"a case change keeps the identity and shows", steps("1 Read done"), steps("1 read done"), "1. read (was 1. Read)"},
		{"same name twice pairs in order", steps("1 Test done", "2 Test pending"), steps("1 Test done", "2 Test done"),
			"2. Test: pending → done"},
		{"name match before number match", steps("1 Alpha pending", "2 Beta pending"), steps("1 Beta done", "2 Alpha pending"),
			"1. Beta: pending → done (was step 2)\n2. Alpha (was step 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stepLines(comparePlans(tc.a, tc.b)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestComparePlansProgressAndReason(t *testing.T) {
	a := steps("1 Read in_progress", "2 Write pending")
	b := steps("1 Read done", "2 Write failed")
	b.Steps[1].FailReason = "the driver buffers"
	pd := comparePlans(a, b)
	if pd.FromDone != 0 || pd.FromTotal != 2 || pd.ToDone != 1 || pd.ToTotal != 2 {
		t.Errorf("progress %+v", pd)
	}
	if got := StepChangeText(pd.Steps[1]); got != "2. Write: pending → failed: the driver buffers" {
		t.Errorf("failed step = %q", got)
	}
}

func TestCompareDecisions(t *testing.T) {
	d := func(id, what string) spec.Decision { return spec.Decision{ID: id, What: what} }
	a := []spec.Decision{d("d_001", "Use CSV"), d("d_002", "Retry twice")}
	b := []spec.Decision{d("d_001", "use  csv"), d("d_002", "Retry twice"), d("d_003", "Retry twice"), d("d_004", "Page rows")}
	got := compareDecisions(a, b)
	var lines []string
	for _, c := range got {
		lines = append(lines, c.Change+" "+c.ID)
	}
	// Text decides, not ids; case and spacing do not; repeats count.
	if want := "added d_003,added d_004"; strings.Join(lines, ",") != want {
		t.Errorf("got %v, want %s", lines, want)
	}
	got = compareDecisions(b, a[:1])
	lines = nil
	for _, c := range got {
		lines = append(lines, c.Change+" "+c.ID)
	}
	if want := "removed d_002,removed d_003,removed d_004"; strings.Join(lines, ",") != want {
		t.Errorf("got %v, want %s", lines, want)
	}
	if got := compareDecisions(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("no decisions: %#v, want an empty list", got)
	}
}

func TestCompareFailures(t *testing.T) {
	when := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f := spec.FailureEntry{When: when, Type: "Transient", Action: "Retry", Summary: "timeout", Body: "details"}
	edited := f
	edited.Body = "more details"
	again := f
	again.When = when.Add(time.Minute)
	got := compareFailures([]spec.FailureEntry{f}, []spec.FailureEntry{edited, again})
	if len(got) != 1 || got[0].Change != ChangeAdded || !got[0].When.Equal(again.When) {
		t.Errorf("got %+v, want only the second timeout added (edited details are not new)", got)
	}
	if got := FailureText(again); got != "2026-11-22T10:01:00Z · Transient → Retry: timeout" {
		t.Errorf("FailureText = %q", got)
	}
	if got := FailureText(spec.FailureEntry{Summary: "line one\nline two"}); got != "line one line two" {
		t.Errorf("FailureText without header = %q", got)
	}
}

func TestCompareOpenItems(t *testing.T) {
	got := compareOpenItems([]string{"Header row?", "Delimiter?"}, []string{"header  row?", "Page size?"})
	var lines []string
	for _, c := range got {
		lines = append(lines, c.Change+": "+c.Text)
	}
	if want := "opened: Page size?,closed: Delimiter?"; strings.Join(lines, ",") != want {
		t.Errorf("got %v, want %s", lines, want)
	}
}

// docs/design.md, "Diff and report": how each kind of file is counted.
func TestCountLines(t *testing.T) {
	s := vcs.NewMemStore()
	blob := func(data string) vcs.Hash {
		id, err := s.WriteObject(vcs.BlobObject, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	big := strings.Repeat("x\n", MaxLineDiffBytes/2+1)
	commit := vcs.Hash{1}
	for _, tc := range []struct {
		name   string
		change vcs.Change
		want   string
	}{
		{"added", vcs.Change{Status: "A", NewID: blob("a\nb\nc")}, "counted +3 -0 0→5"},
		{"deleted", vcs.Change{Status: "D", OldID: blob("a\n")}, "counted +0 -1 2→0"},
		{"modified", vcs.Change{Status: "M", OldID: blob("a\nb\n"), NewID: blob("a\nB\nc\n")}, "counted +2 -1 4→6"},
		{"renamed", vcs.Change{Status: "R", OldID: blob("same\n"), NewID: blob("same\n")}, "counted +0 -0 5→5"},
		{"binary", vcs.Change{Status: "M", OldID: blob("text\n"), NewID: blob("PNG\x00")}, "binary +0 -0 5→4"},
		{"too large to diff", vcs.Change{Status: "M", OldID: blob(big), NewID: blob(big + "y\n")}, fmt.Sprintf("too_large +0 -0 %d→%d", len(big), len(big)+2)},
		{"large but added is counted", vcs.Change{Status: "A", NewID: blob(big)}, fmt.Sprintf("counted +%d -0 0→%d", len(big)/2, len(big))},
		{"submodule", vcs.Change{Status: "M", OldID: commit, NewID: vcs.Hash{2}, OldMode: vcs.ModeGitlink, NewMode: vcs.ModeGitlink}, "submodule +1 -1 0→0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f FileDiff
			if err := countLines(s, tc.change, &f); err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s +%d -%d %d→%d", f.Lines, f.Added, f.Removed, f.OldSize, f.NewSize)
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	// A blob that is gone is an error, not a silent zero.
	var f FileDiff
	if err := countLines(s, vcs.Change{Status: "A", NewID: vcs.Hash{9}}, &f); err == nil {
		t.Error("a missing blob was counted")
	}
}
