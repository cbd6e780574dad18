package markdown

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// examplePlan is the plan of the brief's example (SPEC §4.6 has another).
const examplePlan = `## Plan: Ship the parser

**Goal**: parse every plan form
**Done when**: all tests pass
**Assumptions**: goldmark is enough; files are UTF-8 ✅

### Steps
1. Read conventions — understand the formats ✅
2. Write parser — goldmark AST walk [in progress]
   - handle sub-bullets
   - keep line numbers
3. Fast path — regex only [FAILED: too slow] → pivoted to step 3b
3b. Stream parser — line based (was: step 3)
4. Ship — tag a release

### Open items
- [ ] does goldmark keep positions?
- [x] settle the file name

### Notes
anything
`

// SPEC §4.1–§4.4: the example plan, every field.
func TestParsePlanExample(t *testing.T) {
	got, err := ParsePlan(".active-plan.md", []byte(examplePlan))
	if err != nil {
		t.Fatal(err)
	}
	want := &spec.Plan{
		Title:              "Ship the parser",
		Goal:               "parse every plan form",
		DoneWhen:           "all tests pass",
		Assumptions:        []string{"goldmark is enough", "files are UTF-8"},
		PendingAssumptions: []string{"goldmark is enough"},
		Steps: []spec.Step{
			{Number: "1", Name: "Read conventions", Description: "understand the formats", Status: spec.StepDone, Line: 8},
			{Number: "2", Name: "Write parser", Description: "goldmark AST walk", Status: spec.StepInProgress,
				Subitems: []string{"handle sub-bullets", "keep line numbers"}, Line: 9},
			{Number: "3", Name: "Fast path", Description: "regex only", Status: spec.StepFailed,
				FailReason: "too slow", PivotTo: "3b", Line: 12},
			{Number: "3b", Name: "Stream parser", Description: "line based", Status: spec.StepPending, Was: "3", Line: 13},
			{Number: "4", Name: "Ship", Description: "tag a release", Status: spec.StepPending, Line: 14},
		},
		OpenItems: []string{"does goldmark keep positions?"},
		Sections: []spec.Section{
			{Heading: "Plan: Ship the parser", Level: 2, Line: 1},
			{Heading: "Steps", Level: 3, Line: 7},
			{Heading: "Open items", Level: 3, Line: 16},
			{Heading: "Notes", Level: 3, Line: 20},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	// SPEC §4.3: the current step is the one in progress.
	if cur := got.Current(); cur == nil || cur.Number != "2" {
		t.Errorf("Current() = %+v, want step 2", cur)
	}
}

// step is a short constructor for expected steps.
func step(number, name, desc string, status spec.StepStatus, line int) spec.Step {
	return spec.Step{Number: number, Name: name, Description: desc, Status: status, Line: line}
}

// SPEC §4.1: step forms and where the steps are found; SPEC §4.2: marks.
func TestParsePlanSteps(t *testing.T) {
	const (
		pending    = spec.StepPending
		done       = spec.StepDone
		failed     = spec.StepFailed
		inProgress = spec.StepInProgress
	)
	with := func(s spec.Step, f func(*spec.Step)) spec.Step { f(&s); return s }
	for _, tc := range []struct {
		name string
		src  string
		want []spec.Step
	}{
		{"SPEC §4.1: name/description separators", "# Steps\n1. A — a\n2. B – b\n3. C -- c\n4. D - d\n5. E\n", []spec.Step{
			step("1", "A", "a", pending, 2), step("2", "B", "b", pending, 3), step("3", "C", "c", pending, 4),
			step("4", "D - d", "", pending, 5), step("5", "E", "", pending, 6),
		}},
		{"SPEC §4.1: first separator splits", "# Steps\n1. A — b — c\n", []spec.Step{step("1", "A", "b — c", pending, 2)}},
		{"SPEC §4.1: parenthesis markers", "## Steps\n1) A — a\n2) B\n", []spec.Step{
			step("1", "A", "a", pending, 2), step("2", "B", "", pending, 3),
		}},
		{"SPEC §4.1: labels", "## Steps\n3. A\n3b. B — b\n3c) C\n4. D\n", []spec.Step{
			step("3", "A", "", pending, 2), step("3b", "B", "b", pending, 3), step("3c", "C", "", pending, 4), step("4", "D", "", pending, 5),
		}},
		{"SPEC §4.1: a label after a blank line", "## Steps\n1. A\n\n1b. B\n\n2. C\n", []spec.Step{
			step("1", "A", "", pending, 2), step("1b", "B", "", pending, 4), step("2", "C", "", pending, 6),
		}},
		{"SPEC §4.1: bold name", "## Steps\n1. **Read** the spec — carefully\n", []spec.Step{step("1", "Read the spec", "carefully", pending, 2)}},
		{"SPEC §4.1: task list numbered by position", "## Steps\n- [x] A — a\n- [ ] B\n* [X] C\n+ [ ] D\n", []spec.Step{
			step("1", "A", "a", done, 2), step("2", "B", "", pending, 3), step("3", "C", "", done, 4), step("4", "D", "", pending, 5),
		}},
		{"SPEC §4.1: task items with labels", "## Steps\n- [x] 1. A\n- [ ] 1b) B\n- [ ] C\n", []spec.Step{
			step("1", "A", "", done, 2), step("1b", "B", "", pending, 3), step("3", "C", "", pending, 4),
		}},
		{"SPEC §4.1: numbered item with a checkbox", "## Steps\n1. [x] A\n2. [ ] B\n", []spec.Step{
			step("1", "A", "", done, 2), step("2", "B", "", pending, 3),
		}},
		{"SPEC §4.1: plain bullets under a Steps heading", "## Steps\n- A — a\n- B\n  - sub\n", []spec.Step{
			step("1", "A", "a", pending, 2), with(step("2", "B", "", pending, 3), func(s *spec.Step) { s.Subitems = []string{"sub"} }),
		}},
		{"SPEC §4.1: plain bullets are no steps beside numbered ones", "## Steps\n1. A\n\n- note\n\n2. B\n", []spec.Step{
			step("1", "A", "", pending, 2), step("2", "B", "", pending, 6),
		}},
		{"SPEC §4.1: lazy numbering", "## Steps\n1. A\n1. B\n1. C\n", []spec.Step{
			step("1", "A", "", pending, 2), step("2", "B", "", pending, 3), step("3", "C", "", pending, 4),
		}},
		{"SPEC §4.1: sub-bullets in every form", "## Steps\n1. A\n   - x\n   * y\n     more y\n   1. z\n\n    - after blank\n2. B\n  - two spaces\n\t- tab\n", []spec.Step{
			with(step("1", "A", "", pending, 2), func(s *spec.Step) { s.Subitems = []string{"x", "y more y", "z", "after blank"} }),
			with(step("2", "B", "", pending, 9), func(s *spec.Step) { s.Subitems = []string{"two spaces", "tab"} }),
		}},
		{"SPEC §4.1: continuation lines", "## Steps\n1. A — long\n   description [in progress]\nlazy too\n\n   later paragraph ✅\n2. B\n", []spec.Step{
			step("1", "A", "long description lazy too", inProgress, 2), step("2", "B", "", pending, 7),
		}},
		{"SPEC §4.1: indented steps", "## Steps\n  1. A\n  2. B\n     - sub\n", []spec.Step{
			step("1", "A", "", pending, 2), with(step("2", "B", "", pending, 3), func(s *spec.Step) { s.Subitems = []string{"sub"} }),
		}},
		{"SPEC §4.1: heading case and colon", "## STEPS:\n1. A\n", []spec.Step{step("1", "A", "", pending, 2)}},
		{"SPEC §4.1: section ends at a heading of the same level", "### Steps\n1. A\n#### Phase two\n2. B\n### Later\n3. Not a step\n", []spec.Step{
			step("1", "A", "", pending, 2), step("2", "B", "", pending, 4),
		}},
		{"SPEC §4.1: setext heading ends the section", "Steps\n-----\n1. A\n\nOther\n=====\n2. B\n", []spec.Step{step("1", "A", "", pending, 3)}},
		{"SPEC §4.1: no Steps heading, first ordered list", "# Plan\n\n- a bullet\n- another\n\n1. A — a\n2. B\n\nText after.\n\n1. Other list\n", []spec.Step{
			step("1", "A", "a", pending, 6), step("2", "B", "", pending, 7),
		}},
		{"SPEC §4.1: no Steps heading, list ends at a heading", "1. A\n2. B\n# Next\n3. C\n", []spec.Step{
			step("1", "A", "", pending, 1), step("2", "B", "", pending, 2),
		}},
		{"SPEC §4.1: no Steps heading, labels after the list", "1. A\n2. B\n2b. C\n3. D\n", []spec.Step{
			step("1", "A", "", pending, 1), step("2", "B", "", pending, 2), step("2b", "C", "", pending, 3), step("3", "D", "", pending, 4),
		}},
		{"SPEC §4.1: no Steps heading, first task list", "# Plan\n\n- [ ] A\n- [x] B\n", []spec.Step{
			step("1", "A", "", pending, 3), step("2", "B", "", done, 4),
		}},
		{"SPEC §4.1: no Steps heading, open items are no steps", "## Open items\n- [ ] q\n\n## Work\n1. A\n", []spec.Step{step("1", "A", "", pending, 5)}},
		{"SPEC §4.1: fenced code holds no steps", "## Steps\n1. A\n```\n2. fake\n---\n```\n~~~md\n3. fake\n~~~\n2. B\n", []spec.Step{
			step("1", "A", "", pending, 2), step("2", "B", "", pending, 10),
		}},
		{"SPEC §4.1: code inside a step", "## Steps\n1. A\n   ```\n   9. fake\n   ```\n2. B\n", []spec.Step{
			step("1", "A", "", pending, 2), step("2", "B", "", pending, 6),
		}},
		{"SPEC §4.1: indented code holds no steps", "## Steps\n\n    1. fake\n    2. fake\n\n1. A\n", []spec.Step{step("1", "A", "", pending, 6)}},
		{"SPEC §4.1: HTML comments hold no steps", "## Steps\n<!--\n1. fake\n-->\n1. A\n", []spec.Step{step("1", "A", "", pending, 5)}},
		{"SPEC §4.1: code before any list is not the first list", "```\n1. fake\n```\n\n1. A\n", []spec.Step{step("1", "A", "", pending, 5)}},

		{"SPEC §4.2: done marks", "## Steps\n1. A ✅\n2. B ✔\n3. C ✔️\n4. D [done]\n5. E [DONE]\n6. F ✅ — f\n", []spec.Step{
			step("1", "A", "", done, 2), step("2", "B", "", done, 3), step("3", "C", "", done, 4),
			step("4", "D", "", done, 5), step("5", "E", "", done, 6), step("6", "F", "f", done, 7),
		}},
		{"SPEC §4.2: in-progress marks", "## Steps\n1. A [in progress]\n2. B [In-Progress]\n3. C [IN_PROGRESS] — c\n", []spec.Step{
			step("1", "A", "", inProgress, 2), step("2", "B", "", inProgress, 3), step("3", "C", "c", inProgress, 4),
		}},
		{"SPEC §4.2: failed marks", "## Steps\n1. A [FAILED: too  slow]\n2. B [failed]\n3. C ❌\n4. D — d [Failed:timeout] -> pivoted to 4b\n4b. E\n5. F ❌ → Pivoted to step 6.\n", []spec.Step{
			with(step("1", "A", "", failed, 2), func(s *spec.Step) { s.FailReason = "too slow" }),
			step("2", "B", "", failed, 3),
			step("3", "C", "", failed, 4),
			with(step("4", "D", "d", failed, 5), func(s *spec.Step) { s.FailReason = "timeout"; s.PivotTo = "4b" }),
			step("4b", "E", "", pending, 6),
			with(step("5", "F", "", failed, 7), func(s *spec.Step) { s.PivotTo = "6" }),
		}},
		{"SPEC §4.2: was", "## Steps\n3b. A (was: step 3)\n4. B (Was: 2a)\n5. C (was: step 4, split) — c\n6. D (was: the old D)\n", []spec.Step{
			with(step("3b", "A", "", pending, 2), func(s *spec.Step) { s.Was = "3" }),
			with(step("4", "B", "", pending, 3), func(s *spec.Step) { s.Was = "2a" }),
			with(step("5", "C", "c", pending, 4), func(s *spec.Step) { s.Was = "4" }),
			with(step("6", "D", "", pending, 5), func(s *spec.Step) { s.Was = "the old D" }),
		}},
		{"SPEC §4.2: precedence failed > done > in progress", "## Steps\n1. A ✅ [FAILED: x]\n2. B [in progress] ✅\n- [x] C [in progress]\n- [x] D ❌\n", []spec.Step{
			with(step("1", "A", "", failed, 2), func(s *spec.Step) { s.FailReason = "x" }),
			step("2", "B", "", done, 3), step("3", "C", "", done, 4), step("4", "D", "", failed, 5),
		}},
		{"SPEC §4.2: a mark with nothing after the separator", "## Steps\n1. Read — ✅\n", []spec.Step{step("1", "Read", "", done, 2)}},
		{"SPEC §4.2: marks on a continuation line", "## Steps\n1. A\n   [in progress]\n", []spec.Step{step("1", "A", "", inProgress, 2)}},
		{"SPEC §4.2: marks in sub-bullets are not the step's", "## Steps\n1. A\n   - B ✅\n", []spec.Step{
			with(step("1", "A", "", pending, 2), func(s *spec.Step) { s.Subitems = []string{"B ✅"} }),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, form := range []struct{ name, src string }{
				{"LF", tc.src},
				{"CRLF", strings.ReplaceAll(tc.src, "\n", "\r\n")},
				{"BOM", "\uFEFF" + tc.src},
			} {
				p, err := ParsePlan("plan.md", []byte(form.src))
				if err != nil {
					t.Fatalf("%s: %v", form.name, err)
				}
				if !reflect.DeepEqual(p.Steps, tc.want) {
					t.Errorf("%s: steps\n%s\nwant\n%s", form.name, dumpSteps(p.Steps), dumpSteps(tc.want))
				}
			}
		})
	}
}

func dumpSteps(steps []spec.Step) string {
	var sb strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&sb, "  %+v\n", s)
	}
	return sb.String()
}

// SPEC §4.1: title, Goal, Done when and Assumptions; SPEC §4.4: open items.
func TestParsePlanFields(t *testing.T) {
	const steps = "\n### Steps\n1. A\n"
	for _, tc := range []struct {
		name string
		src  string
		want spec.Plan // Steps and Sections are not compared
	}{
		{"SPEC §4.1: title from a Plan heading at any level", "# Project\n#### Plan: **Bold** title\n" + steps,
			spec.Plan{Title: "Bold title"}},
		{"SPEC §4.1: title from the first level-1 or level-2 heading", "### Minor\n## Major\n# Top\n" + steps,
			spec.Plan{Title: "Major"}},
		{"SPEC §4.1: no title", "Some text\n" + steps, spec.Plan{}},
		{"SPEC §4.1: field forms", "**Goal**: g\n**Done when**: d\n" + steps, spec.Plan{Goal: "g", DoneWhen: "d"}},
		{"SPEC §4.1: colon inside bold", "**Goal:** g\n__Done When:__ d\n" + steps, spec.Plan{Goal: "g", DoneWhen: "d"}},
		{"SPEC §4.1: plain and lower-case fields", "goal: g\nDONE WHEN: d\n" + steps, spec.Plan{Goal: "g", DoneWhen: "d"}},
		{"SPEC §4.1: fields as bullets", "- **Goal**: g\n* Done when: d\n" + steps, spec.Plan{Goal: "g", DoneWhen: "d"}},
		{"SPEC §4.1: the first occurrence wins", "Goal: first\nGoal: second\n" + steps, spec.Plan{Goal: "first"}},
		{"SPEC §4.1: fields in code are ignored", "```\nGoal: fake\n```\nGoal: real\n" + steps, spec.Plan{Goal: "real"}},
		{"SPEC §4.1: fields in the steps are not the plan's", steps + "   - Goal: a sub-item\n", spec.Plan{}},
		{"SPEC §4.1: assumptions split on semicolons", "**Assumptions**: a ✅; b [verified]; c (Verified);  ; d\n" + steps,
			spec.Plan{Assumptions: []string{"a", "b", "c", "d"}, PendingAssumptions: []string{"d"}}},
		{"SPEC §4.1: assumptions as bullets", "**Assumptions**:\n- a\n  continued ✅\n- b\n  - nested, skipped\n\n- c\n\nText.\n- not one\n" + steps,
			spec.Plan{Assumptions: []string{"a continued", "b", "c"}, PendingAssumptions: []string{"b", "c"}}},
		{"SPEC §4.1: assumptions as a bullet with sub-bullets", "- **Goal**: g\n- **Assumptions**:\n  - a\n  - b [VERIFIED]\n- **Done when**: d\n" + steps,
			spec.Plan{Goal: "g", DoneWhen: "d", Assumptions: []string{"a", "b"}, PendingAssumptions: []string{"a"}}},
		{"SPEC §4.1: assumptions with nothing after", "Assumptions:\n\nJust text.\n" + steps, spec.Plan{}},
		{"SPEC §4.4: open items", steps + "### Open Items\n- [ ] q1\n- [x] done\n- plain\n  - nested\n- resolved ✅\n1. numbered\n\ntext\n### Next\n- not open\n",
			spec.Plan{OpenItems: []string{"q1", "plain", "numbered"}}},
		{"SPEC §4.4: open questions", steps + "### Open questions:\n- [ ] why?\n", spec.Plan{OpenItems: []string{"why?"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePlan("plan.md", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			p.Steps, p.Sections = nil, nil
			if !reflect.DeepEqual(*p, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *p, tc.want)
			}
		})
	}
}

// SPEC §4.4: every heading is a section, known or not, in order.
func TestParsePlanSections(t *testing.T) {
	src := "# One\n\nText\n\nTwo\n===\n\n```\n# not a heading\n```\n- ## In a list\n\n> ### Quoted\n\n#### `Code` *and* [link](x)\n###### Six ######\n## Steps\n1. A\n"
	p, err := ParsePlan("plan.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []spec.Section{
		{Heading: "One", Level: 1, Line: 1},
		{Heading: "Two", Level: 1, Line: 5},
		{Heading: "In a list", Level: 2, Line: 11},
		{Heading: "Quoted", Level: 3, Line: 13},
		{Heading: "Code and link", Level: 4, Line: 15},
		{Heading: "Six", Level: 6, Line: 16},
		{Heading: "Steps", Level: 2, Line: 17},
	}
	if !reflect.DeepEqual(p.Sections, want) {
		t.Errorf("sections\n%+v\nwant\n%+v", p.Sections, want)
	}
}

// SPEC §4.3: with no mark, the current step is the first not done.
func TestParsePlanCurrent(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // "" for no current step
	}{
		{"1. A ✅\n2. B\n3. C\n", "2"},
		{"1. A ✅\n2. B\n3. C [in progress]\n", "3"},
		{"1. A ✅\n2. B [FAILED: x]\n3. C\n", "3"},
		{"1. A ✅\n2. B ❌\n", ""},
	} {
		p, err := ParsePlan("plan.md", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if cur := p.Current(); cur != nil {
			got = cur.Number
		}
		if got != tc.want {
			t.Errorf("%q: current step %q, want %q", tc.src, got, tc.want)
		}
	}
}

// SPEC §4.1: a plan without steps is an error, and the plan read so far is
// still returned.
func TestParsePlanNoSteps(t *testing.T) {
	for _, src := range []string{
		"",
		"**Goal**: g\n\nNo list here.\n",
		"**Goal**: g\n\n- just\n- bullets\n",
		"**Goal**: g\n\n## Steps\nTo be written.\n\n## Other\n1. a list in another section\n",
		"**Goal**: g\n\n```\n1. only in code\n```\n",
	} {
		p, err := ParsePlan("plan.md", []byte(src))
		const want = `plan.md: no steps (expected a numbered list or task list, under a "Steps" heading or anywhere)`
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", src, err, want)
			continue
		}
		var fe *spec.FileError
		if !errors.As(err, &fe) || fe.Line != 0 || !errors.Is(err, spec.ErrInvalid) {
			t.Errorf("%q: error %#v, want a *spec.FileError at line 0 matching ErrInvalid", src, err)
		}
		if p == nil || len(p.Steps) != 0 {
			t.Errorf("%q: plan %+v, want the partial plan", src, p)
		} else if src != "" && p.Goal != "g" {
			t.Errorf("%q: goal %q, want the partial plan's", src, p.Goal)
		}
	}
}

// SPEC §4.1: nothing in a big plan is quadratic. A 2 MB plan (about
// 30,000 steps) in go test ./...; 10 MB with CTXGIT_FULL=1 (.ci/run),
// which took 14 s on the 2-core machine.
func TestParsePlanBig(t *testing.T) {
	if testing.Short() {
		t.Skip("big plan")
	}
	size := 2 << 20
	if os.Getenv("CTXGIT_FULL") == "1" {
		size = 10 << 20
	}
	var sb strings.Builder
	sb.WriteString("## Plan: big\n\n**Goal**: g\n\n### Steps\n")
	n := 0
	for sb.Len() < size {
		n++
		fmt.Fprintf(&sb, "%d. Step %d — do **thing** %d ✅\n   - sub %d\n%db. Label — x [in progress] (was: step %d)\n", n, n, n, n, n, n)
	}
	p, err := ParsePlan("plan.md", []byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 2*n {
		t.Fatalf("%d steps, want %d", len(p.Steps), 2*n)
	}
	last := p.Steps[len(p.Steps)-1]
	if want := fmt.Sprint(n) + "b"; last.Number != want || last.Status != spec.StepInProgress || last.Was != fmt.Sprint(n) {
		t.Errorf("last step %+v, want %s in progress", last, want)
	}
}
