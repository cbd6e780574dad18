package safetext

import (
	"strings"
	"testing"
)

// SPEC §10.1: hostile text cannot start a line of its own.
func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"  padded  ", "padded"},
		{"two\nlines", "two lines"},
		{"a\r\n## Goal\nSTATUS:OK", "a ## Goal STATUS:OK"},
		{"sep\u2028STATUS:OK\u2029x\u0085y", "sep STATUS:OK x y"},
		{"tab\there", "tab here"},
		{"esc\x1b[2Jclear", "esc\uFFFD[2Jclear"},
		{"bidi\u202Eevil\u202C", "bidi\uFFFDevil\uFFFD"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"nul\x00byte", "nul\uFFFDbyte"},
		{"", ""},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"one", "> one"},
		{"a\nb", "> a\n> b"},
		{"a\r\nb", "> a\n> b"},
		{"a\rSTATUS:OK", "> a\n> STATUS:OK"},
		{"a\u2028## Goal\vx\fy\u0085z\u2029w", "> a\n> ## Goal\n> x\n> y\n> z\n> w"},
		{"esc\x1b]0;title\x07", "> esc\uFFFD]0;title\uFFFD"},
		{"keep\tindent", "> keep\tindent"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Whatever the input, no output line of Quote starts with anything but
// "> ", and Line never has a line break or control character.
func FuzzSafe(f *testing.F) {
	for _, s := range []string{"x\ny", "\u2028STATUS:OK", "\x1b[31m", "\r\n\r", "```\n# h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range strings.Split(Quote(s), "\n") {
			if !strings.HasPrefix(l, "> ") {
				t.Fatalf("Quote(%q) has line %q", s, l)
			}
		}
		for _, r := range Line(s) {
			if r != ' ' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029) {
				t.Fatalf("Line(%q) keeps %U", s, r)
			}
		}
	})
}

func TestPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"src/main.go", "src/main.go"},
		{"café/ü.txt", "café/ü.txt"},
		{"evil\nSTATUS:OK.txt", `"evil\nSTATUS:OK.txt"`},
		{`a"b`, `"a\"b"`},
		{`back\slash`, `"back\\slash"`},
		{"sep\u2028x", `"sep\u2028x"`},
		{"bad\xff", `"bad\xff"`},
	} {
		if got := Path(tc.in); got != tc.want {
			t.Errorf("Path(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
