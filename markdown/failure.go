package markdown

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/ctxgit/ctxgit/spec"
)

// ParseFailureLog parses a failure log (SPEC §5.1–§5.3): entries separated by a line
// that is exactly "---" outside fenced code. The split is by line, not by
// goldmark, for which a "---" under a paragraph is a heading underline.
// Entries with no text are dropped. path is only used in error messages.
func ParseFailureLog(path string, src []byte) ([]spec.FailureEntry, error) {
	s, err := load(path, src)
	if err != nil {
		return nil, err
	}
	var entries []spec.FailureEntry
	for _, r := range entryRanges(s.lines) {
		if e, ok := parseEntry(s.lines, r.from, r.to); ok {
			entries = append(entries, e)
		}
	}
	return entries, nil
}

// entryRanges are the lines of each entry, the title left out, blank
// edges trimmed, empty entries dropped: the entries ParseFailureLog
// returns, in order.
func entryRanges(lines []string) []lineRange {
	var out []lineRange
	for i, r := range splitEntries(lines) {
		if i == 0 && isTitle(lines[r.from:r.to]) {
			continue
		}
		for r.from < r.to && isBlank(lines[r.from]) {
			r.from++
		}
		for r.to > r.from && isBlank(lines[r.to-1]) {
			r.to--
		}
		if r.from < r.to {
			out = append(out, r)
		}
	}
	return out
}

// ResolveFailures returns src with a "**Resolved**: RESOLUTION" paragraph
// added at the end of each entry whose 0-based position (as
// ParseFailureLog numbers them) is in which (SPEC §5.6). The entry stays
// where it is and every other byte of the file is kept; an entry that
// ends in an open code fence gets the fence closed first, or the field
// would read as code.
func ResolveFailures(path string, src []byte, which []int, resolution string) ([]byte, error) {
	s, err := load(path, src)
	if err != nil {
		return nil, err
	}
	ranges := entryRanges(s.lines)
	after := map[int]bool{} // line index after which a field goes
	for _, i := range which {
		if i < 0 || i >= len(ranges) {
			return nil, spec.InvalidAt(path, 0, "no failure %s", spec.FailureID(i))
		}
		after[ranges[i].to-1] = true
	}
	eol := lineEnding(src)
	body := bytes.TrimPrefix(src, bom)
	// load keeps the line count when it turns CRLF into LF, so line i of
	// s is line i of body.
	orig := strings.SplitAfter(string(body), "\n")
	out := append([]byte(nil), leadingBOM(src)...)
	field := "**Resolved**: " + collapseSpace(resolution)
	for i, line := range orig {
		out = append(out, line...)
		if !after[i] {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			out = append(out, eol...)
		}
		var f fence
		r := rangeEnding(ranges, i)
		for _, l := range s.lines[r.from:r.to] {
			f.step(l)
		}
		if f.open() {
			out = append(out, f.closer()+eol...)
		}
		out = append(out, eol+field+eol...)
	}
	return out, nil
}

// rangeEnding is the range whose last line is line i.
func rangeEnding(ranges []lineRange, i int) lineRange {
	for _, r := range ranges {
		if r.to-1 == i {
			return r
		}
	}
	return lineRange{i, i + 1}
}

// isTitle reports whether the text before the first separator is only the
// log's title ("# Failure log"): level-1 headings that name no time, type
// or action, and nothing else. A title is not a failure (SPEC §5.1); an
// entry's heading is of a deeper level.
func isTitle(lines []string) bool {
	seen := false
	for _, l := range classify(lines) {
		if l.text == "" {
			continue
		}
		if !l.heading || l.code || !(l.text == "#" || strings.HasPrefix(l.text, "# ")) {
			return false
		}
		var e spec.FailureEntry
		readHeading(&e, l.value)
		if !e.When.IsZero() || e.Type != "" || e.Action != "" {
			return false
		}
		seen = true
	}
	return seen
}

// holdsEntry reports whether lines hold at least one entry, the title
// aside.
func holdsEntry(lines []string) bool {
	for i, r := range splitEntries(lines) {
		if i == 0 && isTitle(lines[r.from:r.to]) {
			continue
		}
		for _, l := range lines[r.from:r.to] {
			if !isBlank(l) {
				return true
			}
		}
	}
	return false
}

// lineRange is the 0-based lines [from, to).
type lineRange struct{ from, to int }

// splitEntries cuts lines at the separator lines outside fenced code.
func splitEntries(lines []string) []lineRange {
	var ranges []lineRange
	var f fence
	from := 0
	for i, line := range lines {
		if f.step(line) {
			continue
		}
		if isSeparator(line) {
			ranges = append(ranges, lineRange{from, i})
			from = i + 1
		}
	}
	return append(ranges, lineRange{from, len(lines)})
}

// isSeparator reports whether line is an entry separator: "---" and nothing
// else but trailing spaces.
func isSeparator(line string) bool {
	return strings.TrimRight(line, " \t\r") == "---"
}

// failureFieldRe matches a failure entry field line: "**Type**: x",
// "**Type:** x", "Type: x", or the same as a bullet. Group 1 is the name,
// group 2 the value.
var failureFieldRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(type|action|summary|lesson|when|date|time|step|resolved)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(.*)$`)
})

// headingLineRe matches an ATX heading line; group 1 is its text.
var headingLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t]*$`) })

// maxSummaryLines caps a summary taken from the entry's first paragraph.
const maxSummaryLines = 3

// entryLine is one line of an entry, classified.
type entryLine struct {
	text    string // trimmed
	code    bool   // inside fenced code
	heading bool
	field   string // lower-case field name, "" when the line is not a field
	value   string // the field's value, or the heading's text
}

// parseEntry reads the entry in lines [from, to); ok is false when it holds
// nothing but blank lines.
func parseEntry(lines []string, from, to int) (e spec.FailureEntry, ok bool) {
	for from < to && isBlank(lines[from]) {
		from++
	}
	for to > from && isBlank(lines[to-1]) {
		to--
	}
	if from == to {
		return e, false
	}
	e.Line = from + 1
	e.Body = strings.TrimSpace(strings.Join(lines[from:to], "\n"))

	ls := classify(lines[from:to])
	// When, Type and Action: the first heading or field that names one wins,
	// so an entry's own heading outranks what its body quotes.
	for _, l := range ls {
		switch {
		case l.heading:
			readHeading(&e, l.value)
		case l.field == "type":
			if t, ok := spec.ParseFailureType(l.value); ok && e.Type == "" {
				e.Type = t
			}
		case l.field == "action":
			if a, ok := parseAction(l.value); ok && e.Action == "" {
				e.Action = a
			}
		case l.field == "when" || l.field == "date" || l.field == "time":
			if t, _, _, ok := findTimestamp(l.value); ok && e.When.IsZero() {
				e.When = t
			}
		case l.field == "step":
			if f := strings.Fields(l.value); len(f) > 0 && e.Step == "" {
				e.Step = strings.TrimRight(f[0], ".,;:")
			}
		case l.field == "resolved":
			if l.value != "" && e.Resolved == "" {
				e.Resolved = l.value
				e.ResolvedAt, _, _, _ = findTimestamp(l.value)
			}
		}
	}
	summary, hasSummary := fieldParagraph(ls, "summary", maxSummaryLines)
	if !hasSummary {
		summary = firstParagraph(ls)
	}
	if summary == "" && !hasSummary {
		for _, l := range ls {
			if l.heading {
				summary = l.value
				break
			}
		}
	}
	e.Summary = summary
	e.Lesson, _ = fieldParagraph(ls, "lesson", 0)
	return e, true
}

// classify marks each line of an entry as code, heading, field or text.
func classify(lines []string) []entryLine {
	ls := make([]entryLine, len(lines))
	var f fence
	for i, line := range lines {
		l := entryLine{text: strings.TrimSpace(line)}
		switch {
		case f.step(line):
			l.code = true
		default:
			if m := headingLineRe().FindStringSubmatch(line); m != nil {
				l.heading = true
				l.value = strings.TrimSpace(strings.TrimRight(m[1], "#"))
			} else if m := failureFieldRe().FindStringSubmatch(line); m != nil {
				l.field = strings.ToLower(m[1])
				l.value = strings.TrimSpace(m[2])
			}
		}
		ls[i] = l
	}
	return ls
}

// fieldParagraph returns the value of the first field named name, or, when
// that is empty, the text lines right under it (at most max lines when max
// is positive, joined with "\n"). found says whether the field is there.
func fieldParagraph(ls []entryLine, name string, max int) (value string, found bool) {
	for i, l := range ls {
		if l.field != name {
			continue
		}
		if l.value != "" {
			return l.value, true
		}
		return joinParagraph(ls[i+1:], max), true
	}
	return "", false
}

// firstParagraph returns the first run of text lines (not fields, headings
// or code), at most maxSummaryLines of them.
func firstParagraph(ls []entryLine) string {
	for i, l := range ls {
		if isTextLine(l) {
			return joinParagraph(ls[i:], maxSummaryLines)
		}
	}
	return ""
}

// joinParagraph joins the text lines at the start of ls, up to max of them
// when max is positive.
func joinParagraph(ls []entryLine, max int) string {
	var out []string
	for _, l := range ls {
		if !isTextLine(l) || max > 0 && len(out) == max {
			break
		}
		out = append(out, l.text)
	}
	return strings.Join(out, "\n")
}

func isTextLine(l entryLine) bool {
	return l.text != "" && !l.code && !l.heading && l.field == ""
}

// headingPartSeparators split a heading such as "2026-11-22T10:04:05Z ·
// Logic/Approach → Pivot" into the parts that may name a type or action.
var headingPartSeparators = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`·|→|->|\||—|–|,|;|\(|\)|\[|\]|[ \t]-[ \t]`) })

// readHeading takes When, Type and Action from an entry's heading text,
// each unless already set. A type or action must be a whole part of the
// heading: "## Retry logic broke" names no action.
func readHeading(e *spec.FailureEntry, text string) {
	if t, start, end, ok := findTimestamp(text); ok {
		if e.When.IsZero() {
			e.When = t
		}
		text = text[:start] + " " + text[end:]
	}
	for _, part := range headingPartSeparators().Split(text, -1) {
		part = strings.TrimSpace(part)
		if t, ok := spec.ParseFailureType(part); ok && e.Type == "" {
			e.Type = t
		} else if a, ok := spec.ParseFailureAction(part); ok && e.Action == "" {
			e.Action = a
		}
	}
}

// parseAction matches an action, also as the first word of a longer text
// ("Pivot to step 3b").
func parseAction(s string) (spec.FailureAction, bool) {
	if a, ok := spec.ParseFailureAction(s); ok {
		return a, true
	}
	if f := strings.Fields(s); len(f) > 1 {
		return spec.ParseFailureAction(strings.Trim(f[0], ".,:;!"))
	}
	return "", false
}

// AppendFailure returns src with e rendered as a new entry at the end
// (SPEC §5.2), after a "---" line when src already holds an entry:
//
//	## 2026-11-22T10:04:05Z · Logic/Approach → Pivot
//
//	**Summary**: <summary on one line>
//
//	<body, when not empty and not the summary>
//
//	**Lesson**: <lesson on one line, when there is one>
//
// A zero When puts "Failure" in the timestamp's place, and an empty Type or
// Action leaves its part out. When is written to the second, in UTC;
// summary and lesson on one line, so they read back as written up to
// whitespace. Two things in body would break the log's structure and are
// neutralised: a line that is exactly "---" (indented by a space, so it is
// no separator) and an unclosed code fence (closed). An unclosed fence at
// the end of src is closed too, or the new entry would read as code. src's
// line endings are kept.
func AppendFailure(src []byte, e spec.FailureEntry) []byte {
	eol := lineEnding(src)
	if !holdsText(src) {
		return append(leadingBOM(src), withLineEnding(renderFailure(e), eol)...)
	}
	out := endWithNewline(src, eol)
	var f fence
	last := "" // the last non-blank line
	lines := strings.Split(string(out), "\n")
	for _, line := range lines {
		f.step(line)
		if !isBlank(line) {
			last = line
		}
	}
	var sb strings.Builder
	if f.open() {
		sb.WriteString(f.closer() + "\n")
		last = f.closer()
	}
	switch {
	case isSeparator(last):
		sb.WriteString("\n")
	case !f.open() && !holdsEntry(lines):
		// Only a title so far: the first entry needs no separator, just
		// a blank line after the title.
		if n := len(lines); n < 2 || !isBlank(lines[n-2]) {
			sb.WriteString("\n")
		}
	default:
		sb.WriteString("\n---\n\n")
	}
	sb.WriteString(renderFailure(e))
	return append(out, withLineEnding(sb.String(), eol)...)
}

// renderFailure renders one entry, ending in "\n".
func renderFailure(e spec.FailureEntry) string {
	var sb strings.Builder
	sb.WriteString("## ")
	if e.When.IsZero() {
		sb.WriteString("Failure")
	} else {
		sb.WriteString(formatTime(e.When))
	}
	if t := collapseSpace(string(e.Type)); t != "" {
		sb.WriteString(" · " + t)
	}
	if a := collapseSpace(string(e.Action)); a != "" {
		sb.WriteString(" → " + a)
	}
	summary := collapseSpace(e.Summary)
	sb.WriteString("\n\n**Summary**:")
	if summary != "" {
		sb.WriteString(" " + summary)
	}
	sb.WriteString("\n")
	if step := collapseSpace(e.Step); step != "" {
		sb.WriteString("\n**Step**: " + step + "\n")
	}
	if body := safeBody(e.Body); body != "" && strings.TrimSpace(body) != summary {
		sb.WriteString("\n" + body + "\n")
	}
	if lesson := collapseSpace(e.Lesson); lesson != "" {
		sb.WriteString("\n**Lesson**: " + lesson + "\n")
	}
	return sb.String()
}

// safeBody trims body's blank edges and keeps it from ending its entry
// early: a "---" line is indented by one space (still a rule in markdown, no
// longer a separator) and an unclosed fence is closed.
func safeBody(body string) string {
	body = strings.TrimRight(strings.ReplaceAll(body, "\r\n", "\n"), " \t\r\n")
	lines := strings.Split(body, "\n")
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	var f fence
	for i, line := range lines {
		if !f.step(line) && isSeparator(line) {
			lines[i] = " " + line
		}
	}
	if f.open() {
		lines = append(lines, f.closer())
	}
	return strings.Join(lines, "\n")
}
