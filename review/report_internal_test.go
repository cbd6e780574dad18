package review

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// TestMergeBase checks mergeBase on the shapes git's merge-base handles:
// a branch, an ancestor, a merge, a criss-cross and unrelated histories.
func TestMergeBase(t *testing.T) {
	s := vcs.NewMemStore()
	tree, err := vcs.WriteTree(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	commit := func(parents ...vcs.Hash) vcs.Hash {
		n++
		sig := vcs.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(int64(n), 0).UTC()}
		h, err := vcs.WriteCommit(s, &vcs.Commit{Tree: tree, Parents: parents, Author: sig, Committer: sig, Message: "c"})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	root := commit()
	a1 := commit(root)
	b1 := commit(root)
	a2 := commit(a1)
	merged := commit(a2, b1) // a merge of b into a
	b2 := commit(b1)
	// Criss-cross: x and y each merge the other's parent.
	x0, y0 := commit(a1), commit(a1, b1)
	x, y := commit(x0, y0), commit(y0, x0)
	other := commit()

	for _, c := range []struct {
		name string
		a, b vcs.Hash
		want []vcs.Hash // any one of them
	}{
		{"two branches", a2, b2, []vcs.Hash{root}},
		{"an ancestor", a2, a1, []vcs.Hash{a1}},
		{"the same commit", a2, a2, []vcs.Hash{a2}},
		{"after a merge", merged, b2, []vcs.Hash{b1}},
		{"criss-cross", x, y, []vcs.Hash{x0, y0}}, // both are best, as in git
		{"unrelated", a2, other, []vcs.Hash{vcs.ZeroHash}},
	} {
		got, err := mergeBase(s, c.a, c.b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Contains(c.want, got) {
			t.Errorf("%s: mergeBase = %s, want one of %v", c.name, got, c.want)
		}
	}
}

// TestMergeFirstShown: merging sessions' decisions keeps each once, named
// by the earliest checkpoint showing it; "existing" stays only for what
// was there before the first checkpoint of all, and a later session's
// "existing" is the "added" of the session that recorded it.
func TestMergeFirstShown(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	when := sessionTimes{
		"a:cp_001": t0, "a:cp_002": t0.Add(2 * time.Minute),
		"b:cp_001": t0.Add(time.Minute), "b:cp_002": t0.Add(3 * time.Minute),
	}
	dec := func(at, change, what string) ReportDecision {
		return ReportDecision{at, DecisionChange{change, spec.Decision{What: what}}}
	}
	reps := []*Report{
		{Session: "a", Decisions: []ReportDecision{
			dec("cp_001", ChangeExisting, "Old"),
			dec("cp_002", ChangeAdded, "Made in a"),
		}},
		{Session: "b", Decisions: []ReportDecision{
			dec("cp_001", ChangeExisting, "old"), // the same, folded
			dec("cp_002", ChangeExisting, "Made in a"),
			dec("cp_001", ChangeAdded, "Made in b"),
		}},
	}
	got := mergeFirstShown(reps, when, "a:cp_001", func(r *Report) []ReportDecision { return r.Decisions },
		func(d *ReportDecision) (at, change *string) { return &d.At, &d.Change },
		func(d ReportDecision) string { return decisionKey(d.Decision) })
	want := []ReportDecision{
		dec("a:cp_001", ChangeExisting, "Old"),
		dec("b:cp_001", ChangeAdded, "Made in b"),
		dec("a:cp_002", ChangeAdded, "Made in a"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged:\n%+v\nwant:\n%+v", got, want)
	}
}

// TestStillThere matches entries by key, as many times as the head has
// them.
func TestStillThere(t *testing.T) {
	got := stillThere([]string{"a", "B", "b", "c"}, []string{"b", "A"}, strings.ToLower)
	if want := []string{"a", "B"}; !slices.Equal(got, want) {
		t.Errorf("stillThere = %q, want %q", got, want)
	}
}

// TestRenderCutsNoted: a report cut to fit says what it left out of each
// part, charts and checkpoint rows as well as lists, and an uncut report
// says nothing.
func TestRenderCutsNoted(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cp := func(id string) *workspace.Resolved {
		return &workspace.Resolved{Session: "a", Checkpoint: &spec.Checkpoint{Meta: spec.Meta{CheckpointID: id}}}
	}
	r := &Report{Session: "a", Sessions: []string{"a", "b"}, Base: cp("cp_001"), Head: cp("cp_004")}
	for i, s := range []string{"a", "b", "a", "b"} {
		r.Checkpoints = append(r.Checkpoints, ReportRow{Session: s, CheckpointID: fmt.Sprintf("cp_%03d", i+1),
			CreatedAt: t0.Add(time.Duration(i) * time.Minute), Trigger: "manual",
			TokenUsage: spec.TokenUsage{Utilization: 0.5, Source: "host"}})
		r.Readings = append(r.Readings, ReportReading{Session: s, At: t0.Add(time.Duration(i) * time.Minute), Utilization: 0.5, Source: "host"})
	}
	for _, what := range []string{"one", "two", "three"} {
		r.Decisions = append(r.Decisions, ReportDecision{"cp_002", DecisionChange{ChangeAdded, spec.Decision{What: what}}})
	}
	whole := renderReport(r, renderLimits{rows: -1, files: -1, steps: -1, charts: -1, entries: -1, cut: true})
	if strings.Contains(whole, "left out") {
		t.Errorf("an uncut report notes a cut:\n%s", whole)
	}
	cut := renderReport(r, renderLimits{rows: 2, files: -1, steps: -1, charts: 1, entries: 1, cut: true})
	want := "left out 2 of 3 decisions, 1 of 2 context charts, 2 of 4 checkpoint rows."
	if !strings.Contains(cut, want) {
		t.Errorf("cut report does not say %q:\n%s", want, cut)
	}
}
