// Package safetext renders text that an agent or a third party controls
// (plan steps, decisions, failure summaries, task-state fields, file names)
// into blocks another agent reads as instructions: a recovery block, a
// summary, a bundle, a report. The text must not be able to forge a line
// of the block — a heading, a STATUS: signal, the block's end — nor carry
// terminal escapes or bidirectional overrides that make it read as
// something else than it is (SPEC §10.1).
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line folds text onto one line: every run of whitespace (including the
// line and paragraph separators U+2028 and U+2029 and NEL) becomes one
// space, and control and bidi-override characters become U+FFFD.
func Line(s string) string {
	if isPlain(s) {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(clean(r))
	}
	return b.String()
}

// Quote renders text as a markdown block quote, every line prefixed "> ",
// so none of it can pass for a heading or a signal line. Every character
// a reader might take for a line break (CR, VT, FF, NEL, U+2028, U+2029)
// breaks the line here too, so it is quoted as well; other control and
// bidi-override characters become U+FFFD.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString("> ")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '\r' && i < len(s) && s[i] == '\n':
			// CRLF is one break.
		case r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteString("\n> ")
		default:
			b.WriteRune(clean(r))
		}
	}
	return b.String()
}

// clean replaces a character that could hide or rewrite what is shown.
func clean(r rune) rune {
	switch {
	case r == '\t':
		return r
	case r == utf8.RuneError, unicode.IsControl(r), isBidi(r):
		return utf8.RuneError
	}
	return r
}

// isBidi reports the explicit bidirectional formatting characters
// (embeddings, overrides, isolates), the "Trojan Source" set.
func isBidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// isPlain reports printable ASCII with single inner spaces: the common
// case, returned as is.
func isPlain(s string) bool {
	prev := byte(' ')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || (c == ' ' && prev == ' ' && i > 0) {
			return false
		}
		prev = c
	}
	return true
}

// Path renders a file name on a line of its own, as git's core.quotePath
// does for the characters that matter here: a name holding a control
// character (a newline among them), a double quote or a backslash is
// written as a double-quoted string with escapes, so it stays one line and
// reads back unambiguously; other names are as they are.
func Path(p string) string {
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || isBidi(r) || r == utf8.RuneError {
			return strconv.Quote(p)
		}
	}
	return p
}
