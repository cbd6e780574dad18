package markdown

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte("\xEF\xBB\xBF")

// source is a checked file ready to parse: BOM removed, CRLF turned into LF
// (which keeps the line count, so line numbers still match the file), and
// split into lines.
type source struct {
	path string
	// text is the normalised content as one string, so lines can share it.
	text string
	// lines are the lines of text without their "\n"; lines[0] is line 1.
	lines []string
	// starts[i] is the byte offset of lines[i] in text.
	starts []int
}

// load checks that src is text (SPEC §1: no NUL byte, valid UTF-8) and
// prepares it for parsing.
func load(path string, src []byte) (*source, error) {
	src = bytes.TrimPrefix(src, bom)
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, spec.InvalidAt(path, lineOfOffset(src, i), "binary file, not markdown")
	}
	if !utf8.Valid(src) {
		return nil, spec.InvalidAt(path, lineOfOffset(src, firstInvalidUTF8(src)), "invalid UTF-8")
	}
	text := string(src)
	if strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	s := &source{path: path, text: text}
	start := 0
	for {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			break
		}
		s.lines = append(s.lines, text[start:start+i])
		s.starts = append(s.starts, start)
		start += i + 1
	}
	// A final line without "\n" is a line; an empty tail after the last
	// "\n" is not, as editors count lines.
	if start < len(text) || len(s.lines) == 0 {
		s.lines = append(s.lines, text[start:])
		s.starts = append(s.starts, start)
	}
	return s, nil
}

// lineOfOffset returns the 1-based line holding byte offset off of b.
func lineOfOffset(b []byte, off int) int {
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// firstInvalidUTF8 returns the offset of the first byte that does not start
// a valid UTF-8 sequence.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// lineIndex returns the 0-based index of the line holding byte offset off of
// s.text. Offsets past the end map to the last line.
func (s *source) lineIndex(off int) int {
	lo, hi := 0, len(s.starts)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if s.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// indentOf returns the indentation width of line in columns (a tab goes to
// the next multiple of 4, as in CommonMark) and the rest of the line.
func indentOf(line string) (int, string) {
	cols := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			cols++
		case '\t':
			cols += 4 - cols%4
		default:
			return cols, line[i:]
		}
	}
	return cols, ""
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

// collapseSpace joins the words of s with single spaces: rendered one-line
// fields must not carry newlines, and parsed text is compared word by word.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// listMarkerRe matches the start of a list item: a bullet, an ordered
// number, or a plan label such as "3b." that CommonMark does not know.
// Groups: 1 indentation, 2 bullet, 3 digits, 4 label letters.
var listMarkerRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([ \t]*)(?:([-*+])|(\d{1,9})([A-Za-z]*)[.)])(?:[ \t]+|$)`)
})

// listMarker describes the list marker starting a line, if any.
type listMarker struct {
	indent int    // columns before the marker
	bullet bool   // "-", "*" or "+"
	label  string // "3" or "3b" for ordered markers and labels
	plain  bool   // label is plain digits, a marker CommonMark knows
	rest   string // the item text after the marker
	// restAt is the byte offset of rest in the line.
	restAt int
}

// parseMarker reads the list marker at the start of line.
func parseMarker(line string) (listMarker, bool) {
	m := listMarkerRe().FindStringSubmatchIndex(line)
	if m == nil {
		return listMarker{}, false
	}
	indent, _ := indentOf(line[:m[3]])
	lm := listMarker{indent: indent, rest: line[m[1]:], restAt: m[1]}
	if m[4] >= 0 {
		lm.bullet = true
	} else {
		lm.label = line[m[6]:m[9]]
		lm.plain = m[8] == m[9]
	}
	return lm, true
}

// checkboxRe matches a GitHub task-list checkbox at the start of item text.
var checkboxRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([ xX])\](?:[ \t]+|$)`) })

// labelRe matches a step label at the start of item text ("3." or "3b)").
var labelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,9}[A-Za-z]*)[.)](?:[ \t]+|$)`) })

// fence tracks fenced code blocks line by line, for the files split by line
// rather than by goldmark (a failure log's "---" inside code is not a
// separator).
type fence struct {
	char byte // '`' or '~' while open, 0 when closed
	n    int  // length of the opening fence
}

// fenceRe matches a fence line: up to 3 spaces, then 3 or more backticks or
// tildes.
var fenceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$") })

// step advances the fence state past line and reports whether the line is
// part of a code block (including its fence lines).
func (f *fence) step(line string) bool {
	m := fenceRe().FindStringSubmatch(line)
	if f.char == 0 {
		if m == nil || (m[1][0] == '`' && strings.Contains(m[2], "`")) {
			return false
		}
		f.char, f.n = m[1][0], len(m[1])
		return true
	}
	if m != nil && m[1][0] == f.char && len(m[1]) >= f.n && isBlank(m[2]) {
		f.char = 0
	}
	return true
}

func (f *fence) open() bool { return f.char != 0 }

// closer returns the line that closes the open fence.
func (f *fence) closer() string { return strings.Repeat(string(f.char), f.n) }

// lineEnding returns "\r\n" when src uses CRLF line endings, so appended text
// matches the file.
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// withLineEnding returns s (written with "\n") using eol.
func withLineEnding(s, eol string) string {
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

// endWithNewline returns src ending in a line ending, unless it is empty.
func endWithNewline(src []byte, eol string) []byte {
	out := append([]byte(nil), src...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...)
	}
	return out
}

// holdsText reports whether src has anything but whitespace and a BOM.
func holdsText(src []byte) bool {
	return len(bytes.TrimSpace(bytes.TrimPrefix(src, bom))) > 0
}

// leadingBOM returns a copy of src's BOM, if it has one, to keep it when
// the rest of src is replaced.
func leadingBOM(src []byte) []byte {
	if bytes.HasPrefix(src, bom) {
		return append([]byte(nil), bom...)
	}
	return nil
}
