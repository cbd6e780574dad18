package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/yuin/goldmark/ast"
)

// ParseDecisions parses a decisions log (SPEC §5.4): every item of a list at
// the top of the document is a decision, numbered d_001, d_002, ... in
// order; headings, paragraphs and code are ignored, and so are empty items.
// path is only used in error messages.
func ParseDecisions(path string, src []byte) ([]spec.Decision, error) {
	s, err := load(path, src)
	if err != nil {
		return nil, err
	}
	b := parseBlocks(s)
	var out []spec.Decision
	for _, l := range b.lists {
		if !l.atTop {
			continue
		}
		for _, item := range l.items {
			line, text := itemText(s, item)
			if text == "" {
				continue
			}
			d := parseDecision(text)
			if d.Why == "" {
				d.Why = subitemWhy(s, item)
			}
			d.Line = line + 1
			d.ID = fmt.Sprintf("d_%03d", len(out)+1)
			out = append(out, d)
		}
	}
	return out, nil
}

// timestampWrappers are the pairs a leading timestamp may be wrapped in.
var timestampWrappers = [][2]string{{"**", "**"}, {"__", "__"}, {"`", "`"}, {"[", "]"}, {"", ""}}

// afterTimestampRe matches what separates a leading timestamp from the
// decision: a dash with spaces, a colon, or just a space.
var afterTimestampRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[ \t]+(?:—|–|--|-)(?:[ \t]+|$)|:(?:[ \t]+|$)|[ \t]+|$)`)
})

// whyTailRe matches the start of a decision's reason: " — why: ",
// " - why: ", " — because ".
var whyTailRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[ \t]+(?:—|–|--|-)[ \t]+(?:why[ \t]*:|because(?:[ \t]*:)?(?:[ \t]|$))`)
})

// parseDecision reads "[timestamp sep] what [— why: why]" from an item's text.
func parseDecision(text string) spec.Decision {
	var d spec.Decision
	if t, n, ok := leadingTimestamp(text); ok {
		d.When, text = t, text[n:]
	}
	d.What = strings.TrimSpace(text)
	if loc := whyTailRe().FindStringIndex(text); loc != nil {
		d.What = strings.TrimSpace(text[:loc[0]])
		d.Why = strings.TrimSpace(text[loc[1]:])
	}
	return d
}

// leadingTimestamp parses a timestamp, possibly wrapped in "**", "`" or
// "[]", at the start of text and followed by a separator, and returns the
// length of both.
func leadingTimestamp(text string) (time.Time, int, bool) {
	for _, w := range timestampWrappers {
		rest, ok := strings.CutPrefix(text, w[0])
		if !ok {
			continue
		}
		t, n, ok := timestampAt(rest)
		if !ok {
			continue
		}
		after, ok := strings.CutPrefix(rest[n:], w[1])
		if !ok {
			continue
		}
		sep := afterTimestampRe().FindString(after)
		if sep == "" && after != "" {
			continue
		}
		return t, len(text) - len(after) + len(sep), true
	}
	return time.Time{}, 0, false
}

// whyItemRe matches a sub-item giving a decision's reason: "why: ..." or
// "because: ...", possibly in bold.
var whyItemRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:\*\*|__)?(?:why|because)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*(.*)$`)
})

// subitemWhy returns the reason given by a "why:" sub-item of item, or "".
func subitemWhy(s *source, item *ast.ListItem) string {
	for c := item.FirstChild(); c != nil; c = c.NextSibling() {
		sub, ok := c.(*ast.List)
		if !ok {
			continue
		}
		for si := sub.FirstChild(); si != nil; si = si.NextSibling() {
			subItem, ok := si.(*ast.ListItem)
			if !ok {
				continue
			}
			if _, text := itemText(s, subItem); text != "" {
				if m := whyItemRe().FindStringSubmatch(text); m != nil {
					return strings.TrimSpace(m[1])
				}
			}
		}
	}
	return ""
}

// AppendDecision returns src with d rendered as one new list item at the
// end (SPEC §5.4), after a "# Decisions" heading when src is empty. The item
// reads "- 2026-11-22T10:00:00Z — <what> — why: <why>"; the timestamp part
// is left out for a zero When and the why part for an empty Why. What and
// Why are written on one line, whitespace collapsed, so they read back as
// written up to whitespace; When is written to the second, in UTC. src's
// line endings are kept.
func AppendDecision(src []byte, d spec.Decision) []byte {
	eol := lineEnding(src)
	var out []byte
	if holdsText(src) {
		out = endWithNewline(src, eol)
	} else {
		out = append(append(out, leadingBOM(src)...), withLineEnding("# Decisions\n\n", eol)...)
	}
	return append(out, withLineEnding(renderDecision(d), eol)...)
}

// renderDecision renders d as one list item line ending in "\n".
func renderDecision(d spec.Decision) string {
	var sb strings.Builder
	sb.WriteString("- ")
	if !d.When.IsZero() {
		sb.WriteString(formatTime(d.When))
		if what := collapseSpace(d.What); what != "" {
			sb.WriteString(" — " + what)
		}
	} else {
		sb.WriteString(collapseSpace(d.What))
	}
	if why := collapseSpace(d.Why); why != "" {
		sb.WriteString(" — why: " + why)
	}
	sb.WriteString("\n")
	return sb.String()
}
