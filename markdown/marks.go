package markdown

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ctxgit/ctxgit/spec"
)

// mark is one of the re-plan marks of SPEC §4.2, matched
// case-insensitively anywhere in a step's text.
type mark struct {
	re func() *regexp.Regexp // compiled on first use: package load is on the hook path
	// hints are lower-case strings, one of which every match contains: a
	// cheap test that spares running the expression on most lines of a big
	// plan.
	hints []string
}

// in reports whether text, whose lower-case form is lower, may hold the mark.
func (m mark) in(lower string) bool {
	for _, h := range m.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// matches reports whether text holds the mark.
func (m mark) matches(text string) bool {
	return m.in(strings.ToLower(text)) && m.re().MatchString(text)
}

// The marks.
var (
	// failedMark is "[FAILED: reason]", "[FAILED]" or "❌"; group 1 is the
	// reason.
	failedMark = mark{lazyRE(`(?i)\[failed(?:[ \t]*:([^\]]*))?\]|❌\x{FE0F}?`), []string{"[failed", "❌"}}
	// pivotMark is "→ pivoted to step 3b" (also "->", and without "step");
	// group 1 is the target label.
	pivotMark = mark{lazyRE(`(?i)(?:(?:→|->)[ \t]*)?pivoted[ \t]+to[ \t]+(?:step[ \t]+)?([0-9A-Za-z]+(?:[._-][0-9A-Za-z]+)*)\.?`), []string{"pivoted"}}
	// doneMark is a done mark other than a task-list checkbox.
	doneMark = mark{lazyRE(`(?i)✅\x{FE0F}?|✔\x{FE0F}?|\[done\]`), []string{"✅", "✔", "[done]"}}
	// inProgressMark is "[in progress]", "[in-progress]" or "[in_progress]".
	inProgressMark = mark{lazyRE(`(?i)\[in[ _-]progress\]`), []string{"progress]"}}
	// wasMark is "(was: step 3)"; group 1 is the label.
	wasMark = mark{lazyRE(`(?i)\(was:[ \t]*(?:step[ \t]+)?([^)]*)\)`), []string{"(was:"}}
)

// leadingLabelRe matches a step label at the start of a text.
var leadingLabelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{1,9}[A-Za-z]*\b`) })

// stepText is what the marks in a step's text say, and the text without them.
type stepText struct {
	name, description string
	status            spec.StepStatus
	failReason        string
	pivotTo           string
	was               string
}

// readMarks reads the marks in text (the step's text after its label and
// checkbox). checked is a ticked task-list checkbox. Precedence: failed >
// done > in progress > pending.
func readMarks(text string, checked bool) stepText {
	var st stepText
	lower := strings.ToLower(text)
	submatch := func(m mark) []string {
		if !m.in(lower) {
			return nil
		}
		return m.re().FindStringSubmatch(text)
	}
	if m := submatch(failedMark); m != nil {
		st.status = spec.StepFailed
		st.failReason = collapseSpace(m[1])
	}
	if m := submatch(pivotMark); m != nil {
		st.pivotTo = m[1]
	}
	if m := submatch(wasMark); m != nil {
		st.was = collapseSpace(m[1])
		// Keep only the label of "(was: step 3, split in two)".
		if label := leadingLabelRe().FindString(st.was); label != "" {
			st.was = label
		}
	}
	switch {
	case st.status == spec.StepFailed:
	case checked || doneMark.matches(text):
		st.status = spec.StepDone
	case inProgressMark.matches(text):
		st.status = spec.StepInProgress
	default:
		st.status = spec.StepPending
	}
	text = removeMarks(text, failedMark, pivotMark, doneMark, inProgressMark, wasMark)
	st.name, st.description = splitName(collapseSpace(text))
	st.name = collapseSpace(strings.ReplaceAll(st.name, "**", ""))
	return st
}

// nameSeparators split a step's name from its description.
var nameSeparators = []string{" — ", " – ", " -- "}

// splitName splits "Name — description" at the first separator. A
// separator left dangling at the end (its mark removed) is dropped.
func splitName(text string) (name, description string) {
	best := -1
	sepLen := 0
	for _, sep := range nameSeparators {
		if i := strings.Index(text, sep); i >= 0 && (best < 0 || i < best) {
			best, sepLen = i, len(sep)
		}
	}
	if best >= 0 {
		return strings.TrimSpace(text[:best]), strings.TrimSpace(text[best+sepLen:])
	}
	for _, sep := range nameSeparators {
		if t, ok := strings.CutSuffix(text, strings.TrimRight(sep, " ")); ok {
			return strings.TrimSpace(t), ""
		}
	}
	return text, ""
}

// removeMarks deletes every one of marks from line, with the
// space that separated each from the text before it, so "foo ✅" becomes
// "foo" and "1. ✅ foo" becomes "1. foo". Indentation is never touched.
func removeMarks(line string, marks ...mark) string {
	for _, m := range marks {
		if !m.in(strings.ToLower(line)) {
			continue
		}
		locs := m.re().FindAllStringIndex(line, -1)
		if locs == nil {
			continue
		}
		var sb strings.Builder
		kept := 0        // line[:kept] has been copied or dropped
		hasText := false // something other than indentation was copied
		for _, loc := range locs {
			start, end := loc[0], loc[1]
			ws := start
			for ws > kept && isLineSpace(line[ws-1]) {
				ws--
			}
			hasText = hasText || strings.TrimLeft(line[kept:ws], " \t\r") != ""
			if hasText {
				start = ws
			} else {
				// The mark opens the line: keep the indentation, drop the
				// space after the mark instead.
				for end < len(line) && isLineSpace(line[end]) {
					end++
				}
			}
			sb.WriteString(line[kept:start])
			kept = end
		}
		sb.WriteString(line[kept:])
		line = sb.String()
	}
	return line
}

// isLineSpace reports whether c is space within a line; a lone CR counts,
// as it does for markdown.
func isLineSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// lazyRE compiles expr on first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
