package transcript

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Gist lengths (SPEC §8.3: summary halves of 100 characters, exchange
// gists of 120; failure summaries follow the gists).
const (
	summaryChars = 100
	gistChars    = 120
	// longReply is the length above which an assistant message makes the
	// next prompt a key exchange (SPEC §8.3).
	longReply = 500
	// prefixBytes is how much of a message is kept to make its gist: more
	// than enough for 120 characters after whitespace collapses.
	prefixBytes = 2048
)

// oneLine collapses every run of whitespace and control characters into
// one space, trims the ends, and cuts the result to max characters, the
// last being "…" when something was cut. It reads no more of s than it
// needs, so a megabyte of tool output costs what its first line does.
func oneLine(s string, max int) string {
	if max <= 0 {
		return ""
	}
	var b strings.Builder
	n, space := 0, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError && size <= 1 {
			space = n > 0
			continue
		}
		if space {
			if n+1 >= max {
				return cut(&b, n >= max)
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= max {
			return cut(&b, true)
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// cut ends a cut text with "…", first dropping the last character when the
// builder is full, so the result never exceeds the limit.
func cut(b *strings.Builder, full bool) string {
	s := b.String()
	if _, size := utf8.DecodeLastRuneInString(s); full && size > 0 {
		s = s[:len(s)-size]
	}
	return strings.TrimRight(s, " ") + "…"
}

// prefix returns at most n bytes of s, cut at a character boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// runeCount counts characters the way a person would read the text.
func runeCount(s string) int { return utf8.RuneCountInString(s) }
