// Package safetext renders text that an agent or a third party controls
// (plan steps, decisions, failure summaries, task-state fields, file names)
// into blocks another agent reads as instructions: a recovery block, a
// summary, a bundle, a report. The text must not be able to forge a line
// of the block — a heading, a STATUS: signal, the block's end — nor carry
// terminal escapes or bidirectional overrides that make it read as
// something else than it is (SPEC §10.1).
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line folds text onto one line: every run of whitespace (including the
// line and paragraph separators U+2028 and U+2029 and NEL) becomes one
// space, control, bidi-override and invisible format characters become
// U+FFFD, and host-tag look-alikes are defused (DefuseTags).
func Line(s string) string {
	if isPlain(s) {
		return DefuseTags(strings.TrimSpace(s))
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
	return DefuseTags(b.String())
}

// Quote renders text as a markdown block quote, every line prefixed "> ",
// so none of it can pass for a heading or a signal line. Every character
// a reader might take for a line break (CR, VT, FF, NEL, U+2028, U+2029)
// breaks the line here too, so it is quoted as well; other control,
// bidi-override and invisible format characters become U+FFFD, and
// host-tag look-alikes are defused (DefuseTags).
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
	return DefuseTags(b.String())
}

// clean replaces a character that could hide or rewrite what is shown.
func clean(r rune) rune {
	switch {
	case r == '\t':
		return r
	case r == utf8.RuneError, unicode.IsControl(r), isBidi(r), IsInvisible(r):
		return utf8.RuneError
	}
	return r
}

// IsInvisible reports a character that renders as nothing yet is read by a
// model: Unicode tag characters (U+E0000–U+E007F, which spell hidden
// ASCII), zero-width spaces and joiners, the word joiner, invisible
// operators and the byte-order mark; in short the format characters (Cf)
// other than the soft hyphen, plus the variation-selector supplement.
func IsInvisible(r rune) bool {
	switch {
	case r < 0x80 || r == 0xAD:
		return false
	case r >= 0xE0000 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// DefuseTags breaks markup that a host or model could take for its own
// tags: `<name>`, `</name>` and `<name attr…>` where name starts with a
// letter (`</system-reminder>`, `<user-prompt-submit-hook>`,
// `<command-name>`). The `<` becomes U+FF1C FULLWIDTH LESS-THAN SIGN, so
// the text reads the same to a person and is no tag to a parser. Other
// uses of `<` (`a < b`, `<-`, `<=`) are left alone.
func DefuseTags(s string) string {
	i := strings.IndexByte(s, '<')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i >= 0 {
		b.WriteString(s[:i])
		if tagAt(s[i:]) {
			b.WriteString("\uFF1C")
		} else {
			b.WriteByte('<')
		}
		s = s[i+1:]
		i = strings.IndexByte(s, '<')
	}
	b.WriteString(s)
	return b.String()
}

// tagAt reports whether s, which starts with '<', opens something shaped
// like a markup tag: an optional '/', a letter, then name characters up to
// '>' or a space.
func tagAt(s string) bool {
	j := 1
	if j < len(s) && s[j] == '/' {
		j++
	}
	if j >= len(s) || !isASCIILetter(s[j]) {
		return false
	}
	for j++; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '>' || c == ' ' || c == '/' || c == '\t':
			return true
		case isASCIILetter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':' || c == '.':
		default:
			return false
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// Visible renders text for a terminal or a model as it is, line breaks
// and all, but with every character that could hide or rewrite what is
// shown (controls other than tab and newline, bidi overrides, invisible
// format characters) written as a visible \u{XXXX} escape, and host-tag
// look-alikes defused. For whole documents such as a checkpoint's YAML,
// where Line and Quote would change the layout.
func Visible(s string) string {
	plain := true
	for _, r := range s {
		if r == '<' || r == utf8.RuneError || (r != '\n' && clean(r) != r) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r != '\n' && clean(r) != r:
			fmt.Fprintf(&b, "\\u{%04X}", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return DefuseTags(b.String())
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
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || isBidi(r) || IsInvisible(r) || r == utf8.RuneError {
			return DefuseTags(strconv.Quote(p))
		}
	}
	return DefuseTags(p)
}
