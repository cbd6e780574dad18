package markdown

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/yuin/goldmark/ast"
)

// ParsePlan parses an `.active-plan.md` (SPEC §4). path is only used in
// error messages. A plan with no steps is returned as far as it was read,
// together with an error, so a caller can still show its goal.
func ParsePlan(path string, src []byte) (*spec.Plan, error) {
	s, err := load(path, src)
	if err != nil {
		return nil, err
	}
	p, _ := parsePlan(s)
	if len(p.Steps) == 0 {
		return p, spec.InvalidAt(path, 0, "no steps (expected a numbered list or task list, under a \"Steps\" heading or anywhere)")
	}
	return p, nil
}

// stepSpan is where a step sits in the file, for MarkStep.
type stepSpan struct {
	// lines are the 0-based indexes of the lines holding the step's text:
	// the item's first line and its continuation lines.
	lines []int
	// checkbox is the byte offset, in the first line, of the character
	// between a task-list checkbox's brackets; -1 without a checkbox.
	checkbox int
}

// parsePlan reads the plan in s; spans[i] locates p.Steps[i].
func parsePlan(s *source) (p *spec.Plan, spans []stepSpan) {
	b := parseBlocks(s)
	p = &spec.Plan{Steps: []spec.Step{}}
	for _, h := range b.headings {
		p.Sections = append(p.Sections, spec.Section{Heading: h.text, Level: h.level, Line: h.line + 1})
	}
	p.Title = planTitle(b)

	from, to, fallback := stepsRegion(s, b)
	var end int
	p.Steps, spans, end = scanSteps(s, b, from, to, fallback)
	if fallback {
		to = end
	}
	readFields(s, b, p, from, to)
	p.OpenItems = openItems(s, b)
	return p, spans
}

// planTitleRe matches a "Plan: <title>" heading.
var planTitleRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^plan[ \t]*:[ \t]*(.*)$`) })

// planTitle is the text of the first "Plan: <title>" heading, else of the
// first level-1 or level-2 heading.
func planTitle(b *blocks) string {
	for _, h := range b.headings {
		if m := planTitleRe().FindStringSubmatch(h.text); m != nil && strings.TrimSpace(m[1]) != "" {
			return strings.TrimSpace(m[1])
		}
	}
	for _, h := range b.headings {
		if h.level <= 2 {
			return h.text
		}
	}
	return ""
}

// stepsRegion returns the lines to look for steps in: the section under the
// first "Steps" heading, else from the first ordered or task list (outside
// the open-items section) to the end, with fallback set so that the scan
// stops where that list ends.
func stepsRegion(s *source, b *blocks) (from, to int, fallback bool) {
	if i := b.findSection("steps"); i >= 0 {
		return b.headings[i].end + 1, b.sectionEnd(i, len(s.lines)), false
	}
	openFrom, openTo := -1, -1
	if i := b.findSection(openItemsHeadings...); i >= 0 {
		openFrom, openTo = b.headings[i].line, b.sectionEnd(i, len(s.lines))
	}
	for _, l := range b.lists {
		if !l.atTop || (l.line >= openFrom && l.line < openTo) {
			continue
		}
		if l.ordered || hasCheckbox(s, l) {
			return l.line, len(s.lines), true
		}
	}
	return 0, 0, true
}

// hasCheckbox reports whether any item of l is a task-list item.
func hasCheckbox(s *source, l list) bool {
	for _, item := range l.items {
		m, ok := parseMarker(s.lines[s.lineIndex(nodeStart(item))])
		if ok && checkboxRe().MatchString(m.rest) {
			return true
		}
	}
	return false
}

// scanSteps reads the steps in lines [from, to) line by line, since labels
// such as "3b." are not list markers to goldmark. The first step's
// indentation sets the step level; list items indented deeper are sub-items.
// In fallback mode the scan stops where the list ends (a heading, or text
// back at the step level that continues no step) and end is that line.
func scanSteps(s *source, b *blocks, from, to int, fallback bool) (steps []spec.Step, spans []stepSpan, end int) {
	const (
		outside = iota // text here continues nothing
		inStep         // in the step's first paragraph: text continues it
		inSub          // in a sub-item: indented text continues it
	)
	steps = []spec.Step{}
	var texts []string // texts[k] is the text of steps[k]
	// Under a "Steps" heading, plain bullets are the steps when nothing there
	// is numbered or a task.
	plainBullets := !fallback && !hasStepMarkers(s, b, from, to)
	base := -1 // the indentation of the step level, once a step is seen
	cur := -1  // the step whose item we are in
	state := outside
	end = to
	// leaveList handles text at the step level that continues no step.
	leaveList := func() bool {
		cur, state = -1, outside
		return fallback && base >= 0
	}
scan:
	for i := from; i < to; i++ {
		line := s.lines[i]
		if b.headingAt[i] {
			if leaveList() {
				end = i
				break scan
			}
			continue
		}
		if b.opaque[i] || isBlank(line) {
			state = outside
			continue
		}
		indent, _ := indentOf(line)
		m, isMarker := parseMarker(line)
		if isMarker && !thematicBreakRe().MatchString(line) {
			box := checkboxRe().FindStringSubmatchIndex(m.rest)
			stepLike := m.label != "" || box != nil || plainBullets
			atStepLevel := base < 0 && m.indent <= 3 || base >= 0 && m.indent <= base
			switch {
			case stepLike && atStepLevel:
				if base < 0 {
					base = m.indent
				}
				span := stepSpan{lines: []int{i}, checkbox: -1}
				step := spec.Step{Number: m.label, Line: i + 1}
				text := m.rest
				if box != nil {
					span.checkbox = m.restAt + 1
					if text[1] != ' ' {
						step.Status = spec.StepDone // a ticked box, read again with the marks
					}
					text = text[box[1]:]
				}
				steps = append(steps, step)
				spans = append(spans, span)
				texts = append(texts, strings.TrimSpace(text))
				cur, state = len(steps)-1, inStep
			case base >= 0 && m.indent > base && cur >= 0:
				steps[cur].Subitems = append(steps[cur].Subitems, collapseSpace(m.rest))
				state = inSub
			default:
				// An item at the step level that is not a step, such as a
				// plain bullet among task items: it ends the step, not the list.
				cur, state = -1, outside
			}
			continue
		}
		switch {
		case state == inStep && !interruptsParagraph(line):
			texts[cur] += " " + strings.TrimSpace(line)
			spans[cur].lines = append(spans[cur].lines, i)
		case state == inSub && indent > base && !interruptsParagraph(line):
			subs := steps[cur].Subitems
			subs[len(subs)-1] = collapseSpace(subs[len(subs)-1] + " " + line)
		case cur >= 0 && indent > base:
			state = outside // a later paragraph of the step, not its name
		default:
			if leaveList() {
				end = i
				break scan
			}
		}
	}
	for k := range steps {
		completeStep(&steps[k], texts[k], k+1)
	}
	renumberLazyOnes(steps)
	return steps, spans, end
}

// thematicBreakRe matches a thematic break ("---", "* * *"), which a bullet
// marker test would otherwise take for an item.
var thematicBreakRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
})

// interruptsParagraph reports whether line starts a block that ends a
// paragraph even without a blank line before it.
func interruptsParagraph(line string) bool {
	_, rest := indentOf(line)
	return thematicBreakRe().MatchString(line) || strings.HasPrefix(rest, ">")
}

// hasStepMarkers reports whether lines [from, to) hold a numbered, labelled
// or task-list item at the top indentation levels.
func hasStepMarkers(s *source, b *blocks, from, to int) bool {
	for i := from; i < to; i++ {
		if b.headingAt[i] || b.opaque[i] {
			continue
		}
		if m, ok := parseMarker(s.lines[i]); ok && m.indent <= 3 && (m.label != "" || checkboxRe().MatchString(m.rest)) {
			return true
		}
	}
	return false
}

// completeStep fills step from its text: a label at the start of a task
// item's text numbers it (else its position does), and the marks give its
// status.
func completeStep(step *spec.Step, text string, position int) {
	if step.Number == "" {
		if m := labelRe().FindStringSubmatch(text); m != nil {
			step.Number = m[1]
			text = text[len(m[0]):]
		} else {
			step.Number = strconv.Itoa(position)
		}
	}
	// scanSteps set done for a ticked checkbox; the marks may still say failed.
	st := readMarks(text, step.Status == spec.StepDone)
	step.Name, step.Description = st.name, st.description
	step.Status, step.FailReason, step.PivotTo, step.Was = st.status, st.failReason, st.pivotTo, st.was
}

// renumberLazyOnes numbers steps by position when every one is "1": that
// is markdown's lazy numbering ("1." on every item), which renders as 1, 2,
// 3 and is meant so.
func renumberLazyOnes(steps []spec.Step) {
	if len(steps) < 2 {
		return
	}
	for _, st := range steps {
		if st.Number != "1" {
			return
		}
	}
	for k := range steps {
		steps[k].Number = strconv.Itoa(k + 1)
	}
}

// fieldRe matches a plan field line: "**Goal**: x", "**Goal:** x", "Goal: x"
// or the same as a bullet. Group 1 is the field name, group 2 the value.
var fieldRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(goal|done[ \t]+when|assumptions)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(.*)$`)
})

// readFields reads the Goal, Done when and Assumptions fields from the lines
// outside code, headings and the steps region [stepsFrom, stepsTo). The
// first occurrence of each wins.
func readFields(s *source, b *blocks, p *spec.Plan, stepsFrom, stepsTo int) {
	seenAssumptions := false
	for i, line := range s.lines {
		if i >= stepsFrom && i < stepsTo || b.headingAt[i] || b.opaque[i] {
			continue
		}
		m := fieldRe().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		value := strings.TrimSpace(m[2])
		switch strings.ToLower(collapseSpace(m[1])) {
		case "goal":
			if p.Goal == "" {
				p.Goal = value
			}
		case "done when":
			if p.DoneWhen == "" {
				p.DoneWhen = value
			}
		case "assumptions":
			if seenAssumptions {
				continue
			}
			seenAssumptions = true
			var items []string
			if value != "" {
				items = strings.Split(value, ";")
			} else {
				items = bulletItems(s, b, i+1)
			}
			for _, a := range items {
				text, verified := readVerified(a)
				if text == "" {
					continue
				}
				p.Assumptions = append(p.Assumptions, text)
				if !verified {
					p.PendingAssumptions = append(p.PendingAssumptions, text)
				}
			}
		}
	}
}

// verifiedRe matches the marks of a verified assumption.
var verifiedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)✅\x{FE0F}?|\[verified\]|\(verified\)`) })

// readVerified strips the verified marks from an assumption and reports
// whether there were any.
func readVerified(a string) (string, bool) {
	verified := verifiedRe().MatchString(a)
	return collapseSpace(verifiedRe().ReplaceAllString(a, " ")), verified
}

// bulletItems returns the texts of the list items that start at the first
// non-blank line from line index from on, such as the assumptions under an
// "Assumptions:" line with no value. Deeper items are skipped; the list ends
// at a heading, code, or text back at the items' level.
func bulletItems(s *source, b *blocks, from int) []string {
	var items []string
	base := -1
	continues := false // the previous line was an item's text
	for i := from; i < len(s.lines); i++ {
		line := s.lines[i]
		if b.headingAt[i] || b.opaque[i] {
			break
		}
		if isBlank(line) {
			continues = false
			continue
		}
		m, isMarker := parseMarker(line)
		switch {
		case isMarker && base < 0:
			base = m.indent
			fallthrough
		case isMarker && m.indent >= base && m.indent <= base+1:
			items = append(items, collapseSpace(m.rest))
			continues = true
		case isMarker && m.indent > base:
			continues = false // a nested item, not an assumption of its own
		case base < 0 || isMarker:
			return items
		case continues && !interruptsParagraph(line):
			items[len(items)-1] = collapseSpace(items[len(items)-1] + " " + line)
		default:
			if indent, _ := indentOf(line); indent <= base {
				return items
			}
		}
	}
	return items
}

// openItemsHeadings name the section of open items (SPEC §4.4).
var openItemsHeadings = []string{"open items", "open questions"}

// openItems returns the items of the lists in the open-items section that
// are not done: a ticked task item or a done mark closes an item.
func openItems(s *source, b *blocks) []string {
	i := b.findSection(openItemsHeadings...)
	if i < 0 {
		return nil
	}
	from, to := b.headings[i].end+1, b.sectionEnd(i, len(s.lines))
	var open []string
	for _, l := range b.lists {
		if l.line < from || l.line >= to {
			continue
		}
		for _, item := range l.items {
			_, text := itemText(s, item)
			if m := checkboxRe().FindStringSubmatch(text); m != nil {
				if m[1] != " " {
					continue
				}
				text = text[len(m[0]):]
			}
			if doneMark.matches(text) || text == "" {
				continue
			}
			open = append(open, text)
		}
	}
	return open
}

// itemText returns a list item's first line index and its text: the first
// line after the marker, then the lines goldmark continues its first
// paragraph with. The first line is taken raw, so an item whose text looks
// like other markdown ("# x", "1. x") still reads as written.
func itemText(s *source, item *ast.ListItem) (int, string) {
	line := s.lineIndex(nodeStart(item))
	first := strings.TrimSpace(s.lines[line])
	if m, ok := parseMarker(s.lines[line]); ok {
		first = strings.TrimSpace(m.rest)
	}
	parts := []string{first}
	switch para := item.FirstChild().(type) {
	case *ast.Paragraph, *ast.TextBlock:
		lines := para.Lines()
		for k := 0; k < lines.Len(); k++ {
			l := s.lineIndex(lines.At(k).Start)
			if l > line {
				parts = append(parts, strings.TrimSpace(s.lines[l]))
			}
		}
	}
	return line, collapseSpace(strings.Join(parts, " "))
}
