package markdown

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"
)

// planSeeds are plans in every form the tests cover.
var planSeeds = []string{
	examplePlan,
	"## Steps\n1. A\n   - x\n   * y\n     more y\n   1. z\n\n    - after blank\n2. B\n  - two spaces\n\t- tab\n",
	"## Steps\n- [x] 1. A\n- [ ] 1b) B\n- [ ] C [in progress]\n",
	"# Plan\n\n- a bullet\n\n1. A — a\n2. B\n2b. C ❌ -> pivoted to 3\n\nText after.\n",
	"## Steps\n1. A\n```\n2. fake\n---\n```\n<!--\n3. fake\n-->\n2. B\n",
	"**Assumptions**:\n- a\n  continued ✅\n- b\n\n### Steps\n1. A [FAILED: x] → pivoted to step 1b\n1b. B (was: step 1)\n\n### Open items\n- [ ] q\n",
	"Steps\n-----\n1. A\r\n2. B ✅\r\n",
	"1. ✅ A\n   ✅ more [in progress]\n1. B\n",
}

// FuzzParsePlan checks that ParsePlan never panics, that what it returns is
// consistent, and that CRLF and a BOM change nothing (SPEC §1, §4).
func FuzzParsePlan(f *testing.F) {
	for _, s := range planSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := ParsePlan("plan.md", src)
		if err != nil {
			if p != nil && len(p.Steps) != 0 {
				t.Fatalf("error %v with %d steps", err, len(p.Steps))
			}
			return
		}
		nlines := bytes.Count(src, []byte("\n")) + 1
		for _, s := range p.Steps {
			if s.Line < 1 || s.Line > nlines || s.Number == "" {
				t.Fatalf("step %+v out of a %d-line file", s, nlines)
			}
		}
		if bytes.ContainsRune(src, '\r') {
			return
		}
		crlf, err := ParsePlan("plan.md", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		if err != nil || !reflect.DeepEqual(crlf, p) {
			t.Fatalf("CRLF reads differently: %v\n%+v\n%+v", err, crlf, p)
		}
		if !bytes.HasPrefix(src, bom) {
			withBOM, err := ParsePlan("plan.md", append(slices.Clip(bom), src...))
			if err != nil || !reflect.DeepEqual(withBOM, p) {
				t.Fatalf("a BOM reads differently: %v\n%+v\n%+v", err, withBOM, p)
			}
		}
	})
}

// FuzzParseFailureLog checks that ParseFailureLog never panics and that CRLF
// changes nothing (SPEC §1, §5.1).
func FuzzParseFailureLog(f *testing.F) {
	f.Add([]byte(exampleFailureLog))
	f.Add([]byte("A\n```\n---\n```\n~~~~\n---\n~~~\n---\n~~~~\n---\nB\n"))
	f.Add([]byte("## 2026-01-01 Transient\nType: Input/Data\nDate: 2025-01-01T10:00:00.5+01:00\n---\n**Summary**:\nfirst\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		entries, err := ParseFailureLog("log.md", src)
		if err != nil {
			return
		}
		nlines := bytes.Count(src, []byte("\n")) + 1
		for _, e := range entries {
			if e.Line < 1 || e.Line > nlines || e.Body == "" {
				t.Fatalf("entry %+v in a %d-line file", e, nlines)
			}
			if !e.When.IsZero() && e.When.Location() != time.UTC {
				t.Fatalf("When %v not in UTC", e.When)
			}
		}
		if bytes.ContainsRune(src, '\r') {
			return
		}
		crlf, err := ParseFailureLog("log.md", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		if err != nil || !reflect.DeepEqual(crlf, entries) {
			t.Fatalf("CRLF reads differently: %v\n%+v\n%+v", err, crlf, entries)
		}
	})
}

// FuzzParseDecisions checks that ParseDecisions never panics, numbers the
// decisions in order, and reads CRLF the same (SPEC §5.4).
func FuzzParseDecisions(f *testing.F) {
	f.Add([]byte("# Decisions\n\n- 2026-11-22T10:00:00Z — use goldmark — why: positions\n- `2026-11-22` b\n  - why: x\n1. c\n"))
	f.Add([]byte("```\n- fake\n```\n\n> - quoted\n\n<!--\n- commented\n-->\n- real\n  lazy\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ds, err := ParseDecisions("decisions.md", src)
		if err != nil {
			return
		}
		for i, d := range ds {
			if d.ID != fmt.Sprintf("d_%03d", i+1) || d.What == "" && d.When.IsZero() && d.Why == "" {
				t.Fatalf("decision %d: %+v", i, d)
			}
		}
		if bytes.ContainsRune(src, '\r') {
			return
		}
		crlf, err := ParseDecisions("decisions.md", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		if err != nil || !reflect.DeepEqual(crlf, ds) {
			t.Fatalf("CRLF reads differently: %v\n%+v\n%+v", err, crlf, ds)
		}
	})
}

var fuzzStatuses = []spec.StepStatus{spec.StepDone, spec.StepInProgress, spec.StepPending, spec.StepFailed}

// FuzzMarkStep checks that MarkStep never panics and, on a step that
// exists, changes only that step's lines and the lines of other steps that
// were in progress, leaving the step in the status asked for (SPEC §4.5).
func FuzzMarkStep(f *testing.F) {
	for i, s := range planSeeds {
		f.Add([]byte(s), uint8(i), uint8(i), "a reason")
	}
	f.Fuzz(func(t *testing.T, src []byte, pick, statusPick uint8, reason string) {
		status := fuzzStatuses[int(statusPick)%len(fuzzStatuses)]
		s, err := load("plan.md", src)
		if err != nil {
			if _, err := MarkStep("plan.md", src, "1", status, reason); err == nil {
				t.Fatal("no error on a bad file")
			}
			return
		}
		p, spans := parsePlan(s)
		if len(p.Steps) == 0 {
			if _, err := MarkStep("plan.md", src, "1", status, reason); err == nil {
				t.Fatal("no error without steps")
			}
			return
		}
		number := p.Steps[int(pick)%len(p.Steps)].Number
		target := slices.IndexFunc(p.Steps, func(s spec.Step) bool { return s.Number == number })
		out, err := MarkStep("plan.md", src, number, status, reason)
		if err != nil {
			if status == spec.StepFailed && collapseSpace(reason) == "" || strings.Contains(err.Error(), "could not mark") {
				return
			}
			t.Fatalf("MarkStep %s %s: %v", number, status, err)
		}
		allowed := map[int]bool{}
		for _, i := range spans[target].lines {
			allowed[i] = true
		}
		if status == spec.StepInProgress {
			for _, sp := range spans {
				for _, i := range sp.lines {
					if inProgressMark.matches(s.lines[i]) {
						allowed[i] = true
					}
				}
			}
		}
		before := strings.Split(string(bytes.TrimPrefix(src, bom)), "\n")
		after := strings.Split(string(bytes.TrimPrefix(out, bom)), "\n")
		if len(before) != len(after) || bytes.HasPrefix(src, bom) != bytes.HasPrefix(out, bom) {
			t.Fatalf("line count or BOM changed:\n%q\n%q", src, out)
		}
		for i := range before {
			if before[i] != after[i] && !allowed[i] {
				t.Fatalf("line %d changed: %q → %q", i+1, before[i], after[i])
			}
			if strings.HasSuffix(before[i], "\r") != strings.HasSuffix(after[i], "\r") {
				t.Fatalf("line %d lost or gained a CR", i+1)
			}
		}
		got, err := ParsePlan("plan.md", out)
		if err != nil || got.FindStep(number).Status != status {
			t.Fatalf("step %s not %s after marking: %v", number, status, err)
		}
	})
}

// FuzzAppendDecision checks the round trip of SPEC §5.4: a decision
// appended to a log reads back as the last decision, the same up to
// whitespace. The inputs the format cannot tell apart are skipped: an
// empty What, a What holding a why tail, and, without a timestamp, a What
// that opens with a date or is a thematic break.
func FuzzAppendDecision(f *testing.F) {
	f.Add([]byte("# Decisions\n\n- old\n"), int64(1795340400), "use goldmark", "it keeps positions")
	f.Add([]byte(""), int64(0), "no time", "")
	f.Add([]byte("1. a\r\n"), int64(-1), "# heading-like", "[x] - b")
	f.Fuzz(func(t *testing.T, src []byte, unix int64, what, why string) {
		if _, err := ParseDecisions("d.md", src); err != nil {
			return
		}
		for _, s := range []string{what, why} {
			if !utf8.ValidString(s) || strings.ContainsRune(s, 0) || strings.ContainsRune(s, '\uFEFF') {
				return
			}
		}
		d := spec.Decision{What: collapseSpace(what), Why: collapseSpace(why)}
		if unix%2 != 0 {
			// Any second from year 1 to 9999: the years a timestamp can name.
			const first, span = -62135596800, 253402300800 + 62135596800
			d.When = time.Unix(first+((unix%span)+span)%span, 0).UTC()
		}
		if d.What == "" || whyTailRe().MatchString(d.What) {
			return
		}
		if d.When.IsZero() {
			if _, _, ok := leadingTimestamp(d.What); ok || thematicBreakRe().MatchString("- "+d.What) {
				return
			}
		}
		before, _ := ParseDecisions("d.md", src)
		// A log that ends inside a code block or an HTML block takes no
		// new item; that is the log's problem, not the format's.
		probe, _ := ParseDecisions("d.md", AppendDecision(src, spec.Decision{What: "probe"}))
		if len(probe) != len(before)+1 || probe[len(probe)-1].What != "probe" {
			return
		}
		out := AppendDecision(src, d)
		got, err := ParseDecisions("d.md", out)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(before)+1 {
			t.Fatalf("%d decisions after appending to %d:\n%q", len(got), len(before), out)
		}
		last := got[len(got)-1]
		if !last.When.Equal(d.When) || last.What != d.What || last.Why != d.Why {
			t.Fatalf("%+v reads back as %+v from\n%q", d, last, out)
		}
	})
}
