package spec

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// invalidUTF8Line returns the 1-based line of the first invalid UTF-8 byte,
// or 0 when src is valid.
func invalidUTF8Line(src []byte) int {
	if utf8.Valid(src) {
		return 0
	}
	line := 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if src[i] == '\n' {
			line++
		}
		i += n
	}
	return line
}

// Plural renders a count with its noun as a person reads it: "1 file",
// "2 files". word is the singular, and takes an "s".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// CompactJSON is v as compact JSON on one line, with `<`, `>` and `&` as
// themselves (encoding/json escapes them for HTML by default): the form
// a person or another program writes.
func CompactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
