package markdown

import (
	"bytes"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
)

// MarkStep returns src with step number's status set (SPEC §4.5): only that
// step's line(s) change, and for StepInProgress also any other step's line
// that carried an in-progress mark, which is removed. path is only used in
// error messages.
//
// Done ticks a task-list checkbox, or appends " ✅" to the step's first line;
// in progress appends " [in progress]"; failed appends
// " [FAILED: reason]" (reason is required); pending clears every status
// mark. Each first removes the step's other status marks (a failure's
// "→ pivoted to" goes with it; "(was: …)" stays), so the result reads as one
// status. A reason is written on one line with its brackets turned into
// parentheses, which would otherwise end the mark. Line endings (CRLF or LF)
// and a leading BOM are kept.
//
// An unknown step number is an error: spec.InvalidAt(path, 0, "no step %q").
// So is an edit that would not read back as the status asked for, such as
// a mark split across two lines.
func MarkStep(path string, src []byte, number string, status spec.StepStatus, reason string) ([]byte, error) {
	switch status {
	case spec.StepDone, spec.StepInProgress, spec.StepPending:
	case spec.StepFailed:
		// "[" and "]" would end the mark early; newlines would split the line.
		reason = collapseSpace(strings.NewReplacer("[", "(", "]", ")").Replace(reason))
		if reason == "" {
			return nil, spec.InvalidAt(path, 0, "step %q: a failed step needs a reason", number)
		}
	default:
		return nil, spec.InvalidAt(path, 0, "unknown step status %q", status)
	}
	s, err := load(path, src)
	if err != nil {
		return nil, err
	}
	p, spans := parsePlan(s)
	target := -1
	for i := range p.Steps {
		if p.Steps[i].Number == number {
			target = i
			break
		}
	}
	if target < 0 {
		return nil, spec.InvalidAt(path, 0, "no step %q", number)
	}

	hasBOM := bytes.HasPrefix(src, bom)
	// Edits work on each line without its "\r", put back once at the end,
	// so unchanged lines stay byte for byte and CRLF survives.
	lines := strings.Split(string(bytes.TrimPrefix(src, bom)), "\n")
	cr := make([]bool, len(lines))
	for i := range lines {
		lines[i], cr[i] = strings.CutSuffix(lines[i], "\r")
	}

	span := spans[target]
	for _, i := range span.lines {
		lines[i] = removeMarks(lines[i], statusMarks(status)...)
	}
	first := span.lines[0]
	if span.checkbox >= 0 {
		lines[first] = setCheckbox(lines[first], span.checkbox, status == spec.StepDone)
	}
	stepHas := func(m mark) bool {
		for _, i := range span.lines {
			if m.matches(lines[i]) {
				return true
			}
		}
		return false
	}
	if add := markToAdd(status, reason, span.checkbox >= 0, stepHas); add != "" {
		lines[first] = strings.TrimRight(lines[first], " \t\r") + " " + add
	}
	if status == spec.StepInProgress {
		for k, other := range spans {
			if k == target {
				continue
			}
			for _, i := range other.lines {
				lines[i] = removeMarks(lines[i], inProgressMark)
			}
		}
	}
	for i := range lines {
		if cr[i] {
			lines[i] += "\r"
		}
	}

	out := []byte(strings.Join(lines, "\n"))
	if hasBOM {
		out = append(append([]byte(nil), bom...), out...)
	}
	// A mark split across lines, or text that reads differently once
	// edited, could leave the step in another state: check rather than
	// write a file that says something else.
	got, err := ParsePlan(path, out)
	if step := findStep(got, number); err != nil || step == nil || step.Status != status {
		return nil, spec.InvalidAt(path, p.Steps[target].Line, "step %q: could not mark it %s", number, status)
	}
	return out, nil
}

// statusMarks are the marks that setting status removes from the step: all
// status marks but the one it sets, which is kept so marking is idempotent.
func statusMarks(status spec.StepStatus) []mark {
	switch status {
	case spec.StepDone:
		return []mark{failedMark, pivotMark, inProgressMark}
	case spec.StepInProgress:
		return []mark{failedMark, pivotMark, doneMark}
	default: // failed (its old reason goes too) and pending
		return []mark{failedMark, pivotMark, doneMark, inProgressMark}
	}
}

// setCheckbox ticks or clears the checkbox whose inner character is at
// offset at, keeping an existing "X" when ticking.
func setCheckbox(line string, at int, ticked bool) string {
	if at >= len(line) {
		return line
	}
	switch {
	case ticked && line[at] == ' ':
		return line[:at] + "x" + line[at+1:]
	case !ticked && line[at] != ' ':
		return line[:at] + " " + line[at+1:]
	}
	return line
}

// markToAdd returns the mark to append to the step's first line for status,
// or "" when the step already carries it (the marks left after removal are
// the status's own) or its checkbox says it.
func markToAdd(status spec.StepStatus, reason string, checkbox bool, stepHas func(mark) bool) string {
	switch status {
	case spec.StepDone:
		if !checkbox && !stepHas(doneMark) {
			return "✅"
		}
	case spec.StepInProgress:
		if !stepHas(inProgressMark) {
			return "[in progress]"
		}
	case spec.StepFailed:
		return "[FAILED: " + reason + "]"
	}
	return ""
}

// findStep returns the step numbered number in p, or nil.
func findStep(p *spec.Plan, number string) *spec.Step {
	if p == nil {
		return nil
	}
	return p.FindStep(number)
}
