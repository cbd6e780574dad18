package markdown

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// changedLines returns the 0-based indexes of the lines that differ between
// two texts with the same number of lines, or nil and false when the counts
// differ.
func changedLines(before, after string) ([]int, bool) {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	if len(a) != len(b) {
		return nil, false
	}
	var changed []int
	for i := range a {
		if a[i] != b[i] {
			changed = append(changed, i)
		}
	}
	return changed, true
}

// SPEC §4.5: MarkStep edits only the step's lines, byte for byte.
func TestMarkStep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		src     string
		number  string
		status  spec.StepStatus
		reason  string
		want    string
		changed []int // 0-based lines expected to change
	}{
		{"SPEC §4.5: done appends ✅",
			examplePlan, "4", spec.StepDone, "",
			strings.Replace(examplePlan, "4. Ship — tag a release\n", "4. Ship — tag a release ✅\n", 1), []int{13}},
		{"SPEC §4.5: done removes the in-progress mark",
			examplePlan, "2", spec.StepDone, "",
			strings.Replace(examplePlan, "goldmark AST walk [in progress]\n", "goldmark AST walk ✅\n", 1), []int{8}},
		{"SPEC §4.5: done on a done step changes nothing",
			examplePlan, "1", spec.StepDone, "", examplePlan, nil},
		{"SPEC §4.5: done on a failed step clears the failure",
			examplePlan, "3", spec.StepDone, "",
			strings.Replace(examplePlan, "regex only [FAILED: too slow] → pivoted to step 3b\n", "regex only ✅\n", 1), []int{11}},
		{"SPEC §4.5: in progress moves from step 2 to a 3b label",
			examplePlan, "3b", spec.StepInProgress, "",
			strings.NewReplacer(
				"goldmark AST walk [in progress]\n", "goldmark AST walk\n",
				"line based (was: step 3)\n", "line based (was: step 3) [in progress]\n",
			).Replace(examplePlan), []int{8, 12}},
		{"SPEC §4.5: in progress on the step in progress changes nothing",
			examplePlan, "2", spec.StepInProgress, "", examplePlan, nil},
		{"SPEC §4.5: in progress replaces done",
			examplePlan, "1", spec.StepInProgress, "",
			strings.NewReplacer(
				"understand the formats ✅\n", "understand the formats [in progress]\n",
				"goldmark AST walk [in progress]\n", "goldmark AST walk\n",
			).Replace(examplePlan), []int{7, 8}},
		{"SPEC §4.5: pending clears every mark but was",
			examplePlan, "3", spec.StepPending, "",
			strings.Replace(examplePlan, "regex only [FAILED: too slow] → pivoted to step 3b\n", "regex only\n", 1), []int{11}},
		{"SPEC §4.5: failed appends the reason",
			examplePlan, "3b", spec.StepFailed, "still too slow",
			strings.Replace(examplePlan, "line based (was: step 3)\n", "line based (was: step 3) [FAILED: still too slow]\n", 1), []int{12}},
		{"SPEC §4.5: failed replaces an older failure and keeps the reason on one line",
			"1. A [FAILED: x] → pivoted to step 2\n2. B\n", "1", spec.StepFailed, "index [3]\nout of range",
			"1. A [FAILED: index (3) out of range]\n2. B\n", []int{0}},
		{"SPEC §4.5: failed removes done",
			"1. A ✅ — a\n", "1", spec.StepFailed, "r",
			"1. A — a [FAILED: r]\n", []int{0}},
		{"SPEC §4.5: a mark opening the text",
			"1. ✅ A\n   ✅ more\n", "1", spec.StepPending, "",
			"1. A\n   more\n", []int{0, 1}},
		{"SPEC §4.5: marks on continuation lines",
			"## Steps\n1. A\n   more [in progress]\n2. B\n", "1", spec.StepDone, "",
			"## Steps\n1. A ✅\n   more\n2. B\n", []int{1, 2}},
		{"SPEC §4.5: in progress leaves another step's continuation line",
			"1. A\n   more [in progress]\n   - sub [in progress]\n2. B\n", "2", spec.StepInProgress, "",
			"1. A\n   more\n   - sub [in progress]\n2. B [in progress]\n", []int{1, 3}},
		{"SPEC §4.5: trailing spaces",
			"1. A   \n", "1", spec.StepDone, "",
			"1. A ✅\n", []int{0}},
		{"SPEC §4.5: task item done ticks the box",
			"- [ ] A\n- [ ] B\n", "2", spec.StepDone, "",
			"- [ ] A\n- [x] B\n", []int{1}},
		{"SPEC §4.5: task item done keeps an X",
			"- [X] A\n", "1", spec.StepDone, "", "- [X] A\n", nil},
		{"SPEC §4.5: task item pending clears the box",
			"- [x] A\n- [ ] B\n", "1", spec.StepPending, "",
			"- [ ] A\n- [ ] B\n", []int{0}},
		{"SPEC §4.5: task item in progress",
			"- [x] A\n- [ ] B [in progress]\n", "1", spec.StepInProgress, "",
			"- [ ] A [in progress]\n- [ ] B\n", []int{0, 1}},
		{"SPEC §4.5: task item failed",
			"- [x] A\n", "1", spec.StepFailed, "r",
			"- [ ] A [FAILED: r]\n", []int{0}},
		{"SPEC §4.5: labelled task item",
			"- [ ] 1. A\n- [ ] 1b. B\n", "1b", spec.StepDone, "",
			"- [ ] 1. A\n- [x] 1b. B\n", []int{1}},
		{"SPEC §4.5: CRLF kept",
			"## Steps\r\n1. A [in progress]\r\n2. B\r\n", "2", spec.StepInProgress, "",
			"## Steps\r\n1. A\r\n2. B [in progress]\r\n", []int{1, 2}},
		{"SPEC §4.5: CRLF done",
			"1. A\r\n2. B\r\n", "1", spec.StepDone, "",
			"1. A ✅\r\n2. B\r\n", []int{0}},
		{"SPEC §4.5: BOM kept",
			"\uFEFF1. A\n", "1", spec.StepDone, "",
			"\uFEFF1. A ✅\n", []int{0}},
		{"SPEC §4.5: no final newline",
			"1. A\n2. B", "2", spec.StepDone, "",
			"1. A\n2. B ✅", []int{1}},
		{"SPEC §4.5: lazy numbering",
			"1. A\n1. B\n1. C\n", "2", spec.StepDone, "",
			"1. A\n1. B ✅\n1. C\n", []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MarkStep("plan.md", []byte(tc.src), tc.number, tc.status, tc.reason)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			changed, ok := changedLines(tc.src, string(got))
			if !ok || !reflect.DeepEqual(changed, tc.changed) {
				t.Errorf("changed lines %v (same count: %v), want %v", changed, ok, tc.changed)
			}
			p, err := ParsePlan("plan.md", got)
			if err != nil {
				t.Fatal(err)
			}
			if s := p.FindStep(tc.number); s == nil || s.Status != tc.status {
				t.Errorf("step %s reads back as %+v, want %s", tc.number, s, tc.status)
			}
			if tc.status == spec.StepInProgress {
				for _, s := range p.Steps {
					if s.Status == spec.StepInProgress && s.Number != tc.number {
						t.Errorf("step %s is still in progress", s.Number)
					}
				}
			}
		})
	}
}

// SPEC §4.5: MarkStep's errors name the file.
func TestMarkStepErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    string
		number string
		status spec.StepStatus
		reason string
		want   string
	}{
		{"unknown step", examplePlan, "9", spec.StepDone, "", `plan.md: no step "9"`},
		{"plan without steps", "Nothing.\n", "1", spec.StepDone, "", `plan.md: no step "1"`},
		{"failed without a reason", examplePlan, "1", spec.StepFailed, " \n ", `plan.md: step "1": a failed step needs a reason`},
		{"unknown status", examplePlan, "1", "blocked", "", `plan.md: unknown step status "blocked"`},
		{"binary", "1. A\n\x00", "1", spec.StepDone, "", `plan.md:2: binary file, not markdown`},
		{"invalid UTF-8", "1. A\n\xff", "1", spec.StepDone, "", `plan.md:2: invalid UTF-8`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := MarkStep("plan.md", []byte(tc.src), tc.number, tc.status, tc.reason)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %s", err, tc.want)
			}
			if out != nil {
				t.Errorf("output %q with an error", out)
			}
			if !errors.Is(err, spec.ErrInvalid) {
				t.Errorf("error %v does not match spec.ErrInvalid", err)
			}
		})
	}
}
