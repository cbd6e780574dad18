package markdown

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// blocks is what goldmark tells us about a file's block structure, keyed by
// line: which lines are headings, which are inside code or HTML blocks, and
// where the lists are. Everything else is read line by line.
type blocks struct {
	headings []heading
	// headingAt[i] is true when line index i is (part of) a heading.
	headingAt []bool
	// opaque[i] is true when line index i is inside a code block or an HTML
	// block, where nothing is ever a step, a field or a decision.
	opaque []bool
	// lists are the top-level lists (not nested in another list), in
	// document order.
	lists []list
}

// heading is one heading with its 0-based line span.
type heading struct {
	text      string
	level     int
	line, end int // first and last line index (a setext heading spans two or more)
}

// list is a top-level list and its items.
type list struct {
	line    int // 0-based line of the first marker
	ordered bool
	// atTop is true for a list directly in the document, not in a block quote.
	atTop bool
	items []*ast.ListItem
}

// parseBlocks runs goldmark over s. goldmark's parser is not shared between
// calls, so parsing is safe from several goroutines.
func parseBlocks(s *source) *blocks {
	src := []byte(s.text)
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	b := &blocks{
		headingAt: make([]bool, len(s.lines)),
		opaque:    make([]bool, len(s.lines)),
	}
	listDepth := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.List:
			if !entering {
				listDepth--
				return ast.WalkContinue, nil
			}
			listDepth++
			if listDepth == 1 {
				l := list{line: s.lineIndex(nodeStart(n)), ordered: n.IsOrdered()}
				_, l.atTop = n.Parent().(*ast.Document)
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if item, ok := c.(*ast.ListItem); ok {
						l.items = append(l.items, item)
					}
				}
				b.lists = append(b.lists, l)
			}
		case *ast.Heading:
			if entering {
				h := newHeading(s, src, n)
				b.headings = append(b.headings, h)
				for i := h.line; i <= h.end; i++ {
					b.headingAt[i] = true
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			if entering {
				b.markOpaque(s, n, true)
			}
		case *ast.CodeBlock:
			if entering {
				b.markOpaque(s, n, false)
			}
		case *ast.HTMLBlock:
			if entering {
				b.markOpaque(s, n, false)
				if n.HasClosure() {
					b.opaque[s.lineIndex(n.ClosureLine.Start)] = true
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return b
}

// newHeading describes a heading node. goldmark puts an ATX heading's position
// on its '#' and its text after it, but a setext heading's position on its
// text, whose underline is the line after the text.
func newHeading(s *source, src []byte, n *ast.Heading) heading {
	start := nodeStart(n)
	h := heading{text: inlineText(n, src), level: n.Level, line: s.lineIndex(start)}
	h.end = h.line
	if lines := n.Lines(); lines.Len() > 0 {
		first, last := lines.At(0), lines.At(lines.Len()-1)
		if first.Start == start {
			h.end = min(s.lineIndex(last.Start)+1, len(s.lines)-1)
		}
	}
	return h
}

// markOpaque marks the lines of a code or HTML block. A fenced block's
// closing fence is not among its lines, so it is marked when the next line
// looks like one.
func (b *blocks) markOpaque(s *source, n ast.Node, fenced bool) {
	first := s.lineIndex(nodeStart(n))
	last := first
	if lines := n.Lines(); lines.Len() > 0 {
		last = max(last, s.lineIndex(lines.At(lines.Len()-1).Start))
	}
	if fenced && last+1 < len(s.lines) {
		if t := strings.TrimLeft(s.lines[last+1], " \t>"); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			last++
		}
	}
	for i := first; i <= last; i++ {
		b.opaque[i] = true
	}
}

// nodeStart returns a byte offset where n starts: its own position when
// goldmark recorded one, else its first line, else its first child's start.
func nodeStart(n ast.Node) int {
	for ; n != nil; n = n.FirstChild() {
		if p := n.Pos(); p >= 0 {
			return p
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	return 0
}

// inlineText returns the plain text of a block's inline content: emphasis,
// code and link markup dropped, line breaks as spaces.
func inlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				sb.Write(c.Segment.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					sb.WriteByte(' ')
				}
			case *ast.String:
				sb.Write(c.Value)
			case *ast.AutoLink:
				sb.Write(c.Label(src))
			case *ast.RawHTML:
				// Tags are markup, not text.
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return collapseSpace(sb.String())
}

// sectionEnd returns the line index where the section of headings[i] ends
// (exclusive): the next heading of the same or a higher level, or the end of
// the file.
func (b *blocks) sectionEnd(i, nlines int) int {
	for _, h := range b.headings[i+1:] {
		if h.level <= b.headings[i].level {
			return h.line
		}
	}
	return nlines
}

// findSection returns the index of the first heading whose text, without a
// trailing colon, matches one of names case-insensitively, or -1.
func (b *blocks) findSection(names ...string) int {
	for i, h := range b.headings {
		t := strings.TrimSpace(strings.TrimSuffix(h.text, ":"))
		for _, name := range names {
			if strings.EqualFold(t, name) {
				return i
			}
		}
	}
	return -1
}
