package review

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// SPEC §5.6: a failure the report first saw open takes the resolution
// the newest checkpoint's log records, with what resolved it apart, and
// open failures come first.
func TestResolvedFailures(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	entry := func(min int, summary string) spec.FailureEntry {
		return spec.FailureEntry{When: t0.Add(time.Duration(min) * time.Minute), Summary: summary}
	}
	built, vet, lost := entry(1, "build failed"), entry(2, "vet failed"), entry(3, "lost events")
	failures := []ReportFailure{
		{At: "cp_001", FailureChange: FailureChange{ChangeAdded, built}},
		{At: "cp_002", FailureChange: FailureChange{ChangeAdded, vet}},
		{At: "cp_002", FailureChange: FailureChange{ChangeRemoved, lost}},
	}
	head := &cpState{}
	resolved := built
	resolved.Resolved, resolved.ResolvedAt = "2026-11-22T10:14:00Z — step 2 marked done", t0.Add(14*time.Minute)
	head.failures = []spec.FailureEntry{resolved, vet}
	failures = resolvedAsAt(failures, head)
	sortFailures(failures)
	var got []string
	for _, f := range failures {
		got = append(got, f.Summary+"|"+f.ResolvedBy+"|"+f.Change)
	}
	if want := []string{"vet failed||added", "build failed|step 2 marked done|added", "lost events||removed"}; !slices.Equal(got, want) {
		t.Errorf("failures:\n%q\nwant\n%q", got, want)
	}
	if !failures[1].ResolvedAt.Equal(t0.Add(14 * time.Minute)) {
		t.Errorf("resolved at %v", failures[1].ResolvedAt)
	}
	for value, want := range map[string]string{
		"2026-11-22T10:14:00Z — marked resolved": "marked resolved",
		"yesterday - by hand":                    "by hand",
		"fixed":                                  "fixed",
		"  ":                                     "",
	} {
		if got := resolvedBy(value); got != want {
			t.Errorf("resolvedBy(%q) = %q, want %q", value, got, want)
		}
	}
	// A log that did not parse changes nothing.
	bad := &cpState{}
	bad.bad.failures = true
	open := []ReportFailure{{At: "cp_001", FailureChange: FailureChange{ChangeAdded, vet}}}
	if resolvedAsAt(open, bad)[0].IsResolved() {
		t.Error("a bad log resolved a failure")
	}
}

// The user's instructions: in checkpoint order, each once, a gist cut
// short one with the whole prompt, named by the first checkpoint that
// recorded it.
func TestInstructions(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rows := []ReportRow{
		{Session: "a", CheckpointID: "cp_001", CreatedAt: t0, Prompts: []string{"Migrate the ledger to v2 without…"}},
		{Session: "a", CheckpointID: "cp_002", CreatedAt: t0.Add(time.Minute), Prompts: []string{"Migrate the ledger to v2 without downtime", "keep  the HEADER row"}},
		{Session: "b", CheckpointID: "cp_001", CreatedAt: t0.Add(2 * time.Minute), Prompts: []string{"keep the header row", " ", "go on"}},
	}
	var got []string
	for _, in := range instructions(rows, true) {
		got = append(got, in.Text+" @"+in.At)
	}
	want := []string{"Migrate the ledger to v2 without downtime @a:cp_001", "keep  the HEADER row @a:cp_002", "go on @b:cp_001"}
	if !slices.Equal(got, want) {
		t.Errorf("instructions:\n%q\nwant\n%q", got, want)
	}
	thread := spec.Thread{KeyExchanges: []spec.Exchange{{Role: "user", Gist: "one"}, {Role: "assistant", Gist: "ok"}, {Role: "user", Gist: "two"}}, LatestPrompt: "three"}
	if got := userPrompts(thread); !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Errorf("userPrompts = %q", got)
	}
}

// docs/cli.md#report: Markdown and the HTML page are one report rendered
// twice, with the same sections in the same order.
func TestSectionsAlike(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	res := func(id string) *workspace.Resolved {
		return &workspace.Resolved{Session: "s", Checkpoint: &spec.Checkpoint{Meta: spec.Meta{CheckpointID: id}}}
	}
	failure := spec.FailureEntry{When: t0, Summary: "build failed", Resolved: "2026-11-22T10:05:00Z — step 1 marked done", ResolvedAt: t0.Add(5 * time.Minute)}
	r := &Report{Scope: ScopeBranch, Branch: "feature", FilesBase: &ReportBase{Ref: "master", Commit: strings.Repeat("a", 40)},
		Session: "s", Sessions: []string{"s"}, Title: "T", Base: res("cp_001"), Head: res("cp_002"), Zone: time.UTC,
		Commits:      []ReportCommit{{Commit: strings.Repeat("b", 40), Subject: "parse", When: t0}},
		Files:        []FileDiff{{Path: "a.go", Status: "A", Added: 1, Lines: LinesCounted}},
		Uncommitted:  []FileDiff{{Path: "b.go", Status: StatusUntracked, Added: 1, Lines: LinesCounted}},
		Instructions: []ReportInstruction{{Text: "parse it", At: "cp_001", When: t0}},
		Checklist:    []spec.Step{{Number: "1", Name: "Parse", Status: spec.StepDone}},
		Decisions:    []ReportDecision{{At: "cp_001", DecisionChange: DecisionChange{ChangeAdded, spec.Decision{ID: "d_001", What: "csv"}}}},
		Failures:     []ReportFailure{{At: "cp_001", FailureChange: FailureChange{ChangeAdded, failure}, ResolvedBy: "step 1 marked done"}},
		Open:         []string{"header?"},
		Checkpoints: []ReportRow{{Session: "s", CheckpointID: "cp_001", CreatedAt: t0, Start: true},
			{Session: "s", CheckpointID: "cp_002", CreatedAt: t0.Add(10 * time.Minute), Trigger: "compaction", Steps: 1}},
		Steps: []ReportStep{{At: "cp_002", StepChange: StepChange{Change: StepStatusChanged, Number: "1", Name: "Parse", From: spec.StepPending, To: spec.StepDone}}},
		Plan:  PlanDiff{FromTotal: 1, ToDone: 1, ToTotal: 1},
		Task:  []workspace.TaskChange{{Field: "next_action", To: "ship"}},
	}
	var want []string
	for _, s := range r.Sections() {
		want = append(want, s.Title)
	}
	if len(want) != 12 {
		t.Fatalf("the report has %d sections, want all 12: %q", len(want), want)
	}
	md := renderReport(r, renderLimits{rows: -1, files: -1, steps: -1, charts: -1, entries: -1})
	var mdTitles []string
	for _, m := range regexp.MustCompile(`(?m)^## (.+)$`).FindAllStringSubmatch(md, -1) {
		mdTitles = append(mdTitles, m[1])
	}
	page, err := RenderReportHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	var htmlTitles []string
	for _, m := range regexp.MustCompile(`<section id="[a-z-]+">\n<h2>([^<]+)</h2>`).FindAllStringSubmatch(string(page), -1) {
		htmlTitles = append(htmlTitles, m[1])
	}
	if !slices.Equal(mdTitles, want) || !slices.Equal(htmlTitles, want) {
		t.Errorf("sections:\nreport   %q\nmarkdown %q\nhtml     %q", want, mdTitles, htmlTitles)
	}
	// Both mark the failure resolved, with when and by what.
	if !strings.Contains(md, `**Resolved <time title="2026-11-22T10:05:00Z">10:05</time>, step 1 marked done**`) ||
		!strings.Contains(string(page), `<span class="state resolved">Resolved 10:05, step 1 marked done</span>`) {
		t.Errorf("a rendering does not mark the failure resolved:\n%s", md)
	}
}
