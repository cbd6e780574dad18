package review_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// fixedNow is the time of the first checkpoint of history.
var fixedNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// history builds a session of three checkpoints in a plain directory, ten
// minutes apart: cp_002 adds a decision, a failure and a file and moves
// the plan on; cp_003 edits the file and finishes a step.
func history(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	now := fixedNow
	w, err := workspace.Open(workspace.Env{Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cp := func(msg string) {
		t.Helper()
		if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: "default", Trigger: "manual", Message: msg}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(10 * time.Minute)
	}
	write(".active-plan.md", "## Plan: P\n\n### Steps\n1. Read [in progress]\n2. Write\n\n### Open items\n- [ ] Which delimiter?\n")
	if _, err := taskstate.Decide(w, "Use encoding/csv", ""); err != nil {
		t.Fatal(err)
	}
	cp("one")

	write(".active-plan.md", "## Plan: P\n\n### Steps\n1. Read ✅\n2. Write [in progress]\n\n### Open items\n- [ ] Page size?\n")
	write("csv.go", "package csv\n")
	if _, err := taskstate.Decide(w, "Page with keyset pagination", "no streaming"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := taskstate.Fail(w, spec.FailureEntry{Summary: "streaming fails", Type: "Logic/Approach", Action: "Pivot"}); err != nil {
		t.Fatal(err)
	}
	cp("two")

	write(".active-plan.md", "## Plan: P\n\n### Steps\n1. Read ✅\n2. Write ✅\n\n### Open items\n- [ ] Page size?\n")
	write("csv.go", "package csv\n\nfunc Encode() {}\n")
	cp("three")
	return w
}

// docs/cli.md#diff: DiffCheckpoints compares any two checkpoints of a session.
func TestDiff(t *testing.T) {
	w := history(t)
	from, err := w.Resolve("cp_001", "default")
	if err != nil {
		t.Fatal(err)
	}
	to, err := w.Resolve("@", "default")
	if err != nil {
		t.Fatal(err)
	}
	d, err := review.DiffCheckpoints(w, from, to, review.DiffOptions{Lines: true, Semantic: true})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range d.Files {
		files = append(files, f.Status+" "+f.Path+" "+f.Lines)
	}
	if got, want := strings.Join(files, ","), "M .active-plan.md counted,M .ctxgit/decisions.md counted,A .ctxgit/failure-log.md counted,A csv.go counted"; got != want {
		t.Errorf("files = %s, want %s", got, want)
	}
	if tot := review.Totals(d.Files); tot.Files != 4 || tot.Added == 0 {
		t.Errorf("totals = %+v", tot)
	}
	if len(d.Decisions) != 1 || d.Decisions[0].What != "Page with keyset pagination" || d.Decisions[0].Why != "no streaming" {
		t.Errorf("decisions = %+v", d.Decisions)
	}
	if len(d.Failures) != 1 || d.Failures[0].Summary != "streaming fails" {
		t.Errorf("failures = %+v", d.Failures)
	}
	if d.Plan.FromDone != 0 || d.Plan.ToDone != 2 || len(d.Plan.Steps) != 2 {
		t.Errorf("plan = %+v", d.Plan)
	}
	if len(d.OpenItems) != 2 || d.OpenItems[0].Text != "Page size?" || d.OpenItems[1].Change != review.ItemClosed {
		t.Errorf("open items = %+v", d.OpenItems)
	}

	// Without the semantic part, only files; without lines, no counts.
	d, err = review.DiffCheckpoints(w, from, to, review.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 4 || d.Files[3].Lines != "" || d.Decisions != nil {
		t.Errorf("files-only diff = %+v", d)
	}
}

// docs/cli.md#report: the report counts changes from the session's first
// checkpoint, or from --since, and names the checkpoint where each first
// showed.
func TestReport(t *testing.T) {
	w := history(t)
	r, err := review.BuildReport(w, review.ReportOptions{Session: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Checkpoints) != 3 || !r.Checkpoints[0].Start || r.Since {
		t.Fatalf("timeline = %+v", r.Checkpoints)
	}
	if r.Base.Checkpoint.Meta.CheckpointID != "cp_001" || r.Head.Checkpoint.Meta.CheckpointID != "cp_003" {
		t.Errorf("base %s, head %s", r.Base.Checkpoint.Meta.CheckpointID, r.Head.Checkpoint.Meta.CheckpointID)
	}
	// The decision recorded before the first checkpoint is listed too.
	if len(r.Decisions) != 2 || r.Decisions[0].Change != review.ChangeExisting || r.Decisions[0].At != "cp_001" ||
		r.Decisions[1].Change != review.ChangeAdded || r.Decisions[1].At != "cp_002" {
		t.Errorf("decisions = %+v, want the encoding/csv one before cp_001, the keyset one at cp_002", r.Decisions)
	}
	if len(r.Failures) != 1 || r.Failures[0].At != "cp_002" {
		t.Errorf("failures = %+v", r.Failures)
	}
	var steps []string
	for _, s := range r.Steps {
		steps = append(steps, s.At+" "+review.StepChangeText(s.StepChange))
	}
	want := "cp_002 1. Read: in_progress → done,cp_002 2. Write: pending → in_progress,cp_003 2. Write: in_progress → done"
	if got := strings.Join(steps, ","); got != want {
		t.Errorf("steps = %s\nwant %s", got, want)
	}
	// ctxgit's own files (the plan, here) are not counted.
	if row := r.Checkpoints[2]; row.Files.Files != 1 || row.Steps != 1 || row.Decisions != 0 {
		t.Errorf("cp_003 row = %+v", row)
	}

	md := review.RenderReport(r)
	again, err := review.BuildReport(w, review.ReportOptions{Session: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if review.RenderReport(again) != md {
		t.Error("two reports of the same history differ")
	}
	for _, s := range []string{"# P\n", "\n## Checkpoints\n", "\n## Plan progress\n", "\n## Checklist\n\n- [x] 1. Read\n- [x] 2. Write\n",
		"\n## Decisions\n\n- d_001 Use encoding/csv (before cp_001, <time title=\"2026-11-22T10:00:00Z\">10:00</time>)\n- d_002 Page with keyset pagination — why: no streaming (cp_002, <time title=\"2026-11-22T10:10:00Z\">10:10</time>)\n",
		"\n## Failures\n", "\n## Open items\n", "\n## Files changed\n\n1 file changed, 3 insertions(+)\n"} {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q:\n%s", s, md)
		}
	}
	if strings.Contains(md, "## Task state") {
		t.Error("an empty section was rendered")
	}

	// --since: the timeline starts after it; changes count from it.
	r, err = review.BuildReport(w, review.ReportOptions{Session: "default", Since: "cp_002"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Checkpoints) != 1 || r.Checkpoints[0].CheckpointID != "cp_003" || r.Checkpoints[0].Start || len(r.Decisions) != 0 {
		t.Errorf("since cp_002: %+v", r)
	}
	r, err = review.BuildReport(w, review.ReportOptions{Session: "default", Since: "@"})
	if err != nil {
		t.Fatal(err)
	}
	if md := review.RenderReport(r); md != "# P\n\nNo checkpoints after cp_003.\n" {
		t.Errorf("empty range:\n%s", md)
	}

	for _, tc := range []struct {
		o    review.ReportOptions
		code int
	}{
		{review.ReportOptions{Session: "nosuch"}, spec.ExitNotFound},
		{review.ReportOptions{Session: "default", Since: "cp_009"}, spec.ExitNotFound},
		{review.ReportOptions{Session: "default", Since: "x y"}, spec.ExitUsage},
	} {
		if _, err := review.BuildReport(w, tc.o); spec.ExitCode(err) != tc.code {
			t.Errorf("Report(%+v) = %v, want exit %d", tc.o, err, tc.code)
		}
	}
}

// docs/cli.md#report: table cells — counts by kind, renames, pipes and backticks in
// names, usage text.
func TestRenderReportCells(t *testing.T) {
	res := func(id string) *workspace.Resolved {
		return &workspace.Resolved{Session: "default", Checkpoint: &spec.Checkpoint{Meta: spec.Meta{CheckpointID: id}}}
	}
	r := &review.Report{
		Session: "default", Base: res("cp_001"), Head: res("cp_002"), Since: true,
		Checkpoints: []review.ReportRow{{
			CheckpointID: "cp_002", CreatedAt: fixedNow, Trigger: "compaction", Topic: "a | b",
			TokenUsage: spec.TokenUsage{InputTokens: 150000, ContextWindow: 200000, Utilization: 0.75, Source: "transcript"},
		}},
		Files: []review.FileDiff{
			{Path: "a|b.txt", Status: "M", Added: 1, Removed: 2, Lines: review.LinesCounted},
			{Path: "big.sql", Status: "M", Lines: review.LinesTooLarge},
			{Path: "huge.txt", Status: "M", Added: 9, Removed: 3, Lines: review.LinesEstimated},
			{Path: "logo.png", Status: "A", Lines: review.LinesBinary, NewSize: 9},
			{Path: "new`name", From: "old", Status: "R", Lines: review.LinesCounted},
			{Path: "vendor/lib", Status: "M", Added: 1, Removed: 1, Lines: review.LinesSubmodule},
		},
		Task: []workspace.TaskChange{{Field: "next_action", From: "", To: "ship it"}},
	}
	md := review.RenderReport(r)
	for _, want := range []string{
		"1 checkpoint after cp_001, at <time title=\"2026-11-22T10:00:00Z\">2026-11-22 10:00</time> UTC. Changes are counted from cp_001.\n",
		"| cp_002 | <time title=\"2026-11-22T10:00:00Z\">10:00</time> | compaction | 75% (150k/200k tokens, transcript) | — | no changes | a \\| b |\n",
		"| `a\\|b.txt` | modified | 1 | 2 |\n",
		"| `big.sql` | modified | too large to count |  |\n",
		"| `huge.txt` | modified | ~9 | ~3 |\n",
		"| `logo.png` | added | binary |  |\n",
		"| ``new`name`` (from `old`) | renamed | 0 | 0 |\n",
		"| `vendor/lib` | modified | submodule |  |\n",
		"- next_action: (none) → `ship it`\n",
		"6 files changed, 11 insertions(+), 6 deletions(-)\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
