package spec_test

import (
	"strconv"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

func steps(statuses ...spec.StepStatus) *spec.Plan {
	p := &spec.Plan{}
	for i, s := range statuses {
		p.Steps = append(p.Steps, spec.Step{Number: strconv.Itoa(i + 1), Name: "s", Status: s})
	}
	return p
}

// SPEC §4.3: the current step is the first in progress, else the first
// pending, else none; progress is done of total, failed steps included in
// the total.
func TestPlanCurrentAndProgress(t *testing.T) {
	const (
		P = spec.StepPending
		I = spec.StepInProgress
		D = spec.StepDone
		F = spec.StepFailed
	)
	for _, tc := range []struct {
		name        string
		plan        *spec.Plan
		current     string // step number, "" for none
		done, total int
	}{
		{"empty", steps(), "", 0, 0},
		{"all pending", steps(P, P, P), "1", 0, 3},
		{"first pending after done", steps(D, D, P, P), "3", 2, 4},
		{"in progress wins over an earlier pending", steps(P, D, I, P), "3", 1, 4},
		{"first of two in progress", steps(D, I, I), "2", 1, 3},
		{"failed is skipped", steps(D, F, P), "3", 1, 3},
		{"all done", steps(D, D), "", 2, 2},
		{"all done or failed", steps(D, F, D), "", 2, 3},
		{"only failed", steps(F), "", 0, 1},
	} {
		cur := tc.plan.Current()
		got := ""
		if cur != nil {
			got = cur.Number
		}
		if got != tc.current {
			t.Errorf("%s: Current() = %q, want %q", tc.name, got, tc.current)
		}
		if done, total := tc.plan.Progress(); done != tc.done || total != tc.total {
			t.Errorf("%s: Progress() = %d of %d, want %d of %d", tc.name, done, total, tc.done, tc.total)
		}
	}
	// Current points into the plan, so a caller edits the real step.
	p := steps(D, P)
	p.Current().Status = D
	if p.Steps[1].Status != D {
		t.Error("Current() returned a copy")
	}
}

// SPEC §4.1, §10.4: a step renders as "N. Name — description", which is
// what the checkpoint's current_step and next action show.
func TestStepTitleAndFind(t *testing.T) {
	for _, tc := range []struct {
		step spec.Step
		want string
	}{
		{spec.Step{Number: "3b", Name: "Page through the rows", Description: "keyset"}, "3b. Page through the rows — keyset"},
		{spec.Step{Number: "1", Name: "Read"}, "1. Read"},
	} {
		if got := tc.step.Title(); got != tc.want {
			t.Errorf("Title() = %q, want %q", got, tc.want)
		}
	}
	p := &spec.Plan{Steps: []spec.Step{{Number: "3"}, {Number: "3b"}, {Number: "4"}}}
	if s := p.FindStep("3b"); s == nil || s != &p.Steps[1] {
		t.Errorf("FindStep(3b) = %v", s)
	}
	if s := p.FindStep("3B"); s != nil {
		t.Errorf("FindStep is case-sensitive: FindStep(3B) = %v", s)
	}
	if s := p.FindStep("5"); s != nil {
		t.Errorf("FindStep(5) = %v", s)
	}
}
