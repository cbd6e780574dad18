package markdown

import (
	"errors"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// parsers runs each parser of the package on one input.
var parsers = []struct {
	name  string
	parse func(path string, src []byte) error
}{
	{"ParsePlan", func(path string, src []byte) error { _, err := ParsePlan(path, src); return err }},
	{"ParseFailureLog", func(path string, src []byte) error { _, err := ParseFailureLog(path, src); return err }},
	{"ParseDecisions", func(path string, src []byte) error { _, err := ParseDecisions(path, src); return err }},
	{"MarkStep", func(path string, src []byte) error { _, err := MarkStep(path, src, "1", spec.StepDone, ""); return err }},
}

// SPEC §1: every file must be UTF-8 text; the error names the line
// of the first bad byte.
func TestInputChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want string
	}{
		{"NUL", "1. A\n\n2. B\x00\n", "state.md:3: binary file, not markdown"},
		{"NUL on the first line", "\x00", "state.md:1: binary file, not markdown"},
		{"NUL wins over bad UTF-8", "\xff\n\x00", "state.md:2: binary file, not markdown"},
		{"invalid UTF-8", "1. A\n2. B\n3. \xc3\x28\n", "state.md:3: invalid UTF-8"},
		{"truncated UTF-8 at the end", "1. A\n\xe2\x9c", "state.md:2: invalid UTF-8"},
		{"UTF-16", "\xff\xfe1\x00.\x00", "state.md:1: binary file, not markdown"},
		{"surrogate half", "1. A\r\n\xed\xa0\x80\r\n", "state.md:2: invalid UTF-8"},
		{"bad byte after a BOM", "\uFEFF1. A\n\xff", "state.md:2: invalid UTF-8"},
	} {
		for _, p := range parsers {
			err := p.parse("state.md", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s: %s: error %v, want %s", tc.name, p.name, err, tc.want)
				continue
			}
			var fe *spec.FileError
			if !errors.As(err, &fe) || !errors.Is(err, spec.ErrInvalid) {
				t.Errorf("%s: %s: %#v is not a *spec.FileError matching ErrInvalid", tc.name, p.name, err)
			}
		}
	}
}

// SPEC §1: a BOM, CRLF and a lone CR are text.
func TestInputAccepted(t *testing.T) {
	for _, src := range []string{"\uFEFF1. A\n", "1. A\r\n", "1. A\r", "1. A\rB\n", "1. A"} {
		for _, p := range parsers {
			if err := p.parse("state.md", []byte(src)); err != nil {
				t.Errorf("%q: %s: %v", src, p.name, err)
			}
		}
	}
}

// load keeps line numbers: CRLF becomes LF and the lines match the file's.
func TestLoadLines(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"", 1}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"a\r\nb\r\n", 2}, {"\n\n", 2}, {"a\r\r\nb", 2},
	} {
		s, err := load("f", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.lines) != tc.want {
			t.Errorf("%q: %d lines %q, want %d", tc.src, len(s.lines), s.lines, tc.want)
		}
		for i, start := range s.starts {
			if got := s.lineIndex(start); got != i {
				t.Errorf("%q: offset %d is on line %d, want %d", tc.src, start, got, i)
			}
		}
	}
}
