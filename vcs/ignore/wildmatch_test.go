package ignore

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestWildmatch checks the engine on its own, with and without WM_PATHNAME,
// mostly on cases from git's t3070-wildmatch.sh. SPEC §9.2.
func TestWildmatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		path, plain   bool // result with WM_PATHNAME, and without
	}{
		// Literals, '?', '*', escapes.
		{"foo", "foo", true, true},
		{"bar", "foo", false, false},
		{"", "", true, true},
		{"", "foo", false, false},
		{"???", "foo", true, true},
		{"??", "foo", false, false},
		{"*", "foo", true, true},
		{"f*", "foo", true, true},
		{"*f", "foo", false, false},
		{"*foo*", "foo", true, true},
		{"*ob*a*r*", "foobar", true, true},
		{"*ab", "aaaaaaabababab", true, true},
		{"foo\\*", "foo*", true, true},
		{"foo\\*bar", "foobar", false, false},
		{"f\\\\oo", "f\\oo", true, true},
		{"\\??\\?b", "?a?b", true, true},
		{"\\a\\b\\c", "abc", true, true},
		{"\\", "", false, false},
		{"\\", "\\", false, false},
		{"*/\\", "XXX/\\", false, false},
		{"*/\\\\", "XXX/\\", true, true},
		{"b*a", "aaabbb", false, false},
		{"*ba*", "aabcaa", false, false},
		{"*X*i", "abcXdefXghi", true, true},
		{"*X*i", "ab/cXd/efXg/hi", false, true},

		// '/' handling and the "**" forms.
		{"foo*bar", "foo/baz/bar", false, true},
		{"foo**bar", "foo/baz/bar", false, true},
		{"foo**bar", "foobazbar", true, true},
		{"foo/**/bar", "foo/baz/bar", true, true},
		{"foo/**/**/bar", "foo/baz/bar", true, false}, // without WM_PATHNAME each "**" is "*" and needs its own "/"
		{"foo/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/bar", "foo/bar", true, false},
		{"foo/**/**/bar", "foo/bar", true, false},
		{"foo?bar", "foo/bar", false, true},
		{"foo[/]bar", "foo/bar", false, true},
		{"foo[^a-z]bar", "foo/bar", false, true},
		{"**/foo", "foo", true, false},
		{"**/foo", "XXX/foo", true, true},
		{"**/foo", "bar/baz/foo", true, true},
		{"*/foo", "bar/baz/foo", false, true},
		{"**/bar*", "foo/bar/baz", false, true},
		{"**/bar/*", "deep/foo/bar/baz", true, true},
		{"**/bar/*", "deep/foo/bar/baz/", false, true},
		{"**/bar/**", "deep/foo/bar/baz/", true, true},
		{"**/bar/*", "deep/foo/bar", false, false},
		{"**/bar/**", "deep/foo/bar/", true, true},
		{"**/bar**", "foo/bar/baz", false, true},
		{"*/bar/**", "foo/bar/baz/x", true, true},
		{"*/bar/**", "deep/foo/bar/baz/x", false, true},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
		{"*/*/*", "foo", false, false},
		{"*/*/*", "foo/bar", false, false},
		{"*/*/*", "foo/bba/arr", true, true},
		{"*/*/*", "foo/bb/aa/rr", false, true},
		{"**/**/**", "foo/bb/aa/rr", true, true},
		{"*/*X*/*/*i", "ab/cXd/efXg/hi", true, true},
		{"**/*X*/**/*i", "ab/cXd/efXg/hi", true, true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false, false},
		{"**/t[o]", "foo/bar/baz/to", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", false, false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", false, false},

		// Bracket expressions.
		{"*[al]?", "ball", true, true},
		{"[ten]", "ten", false, false},
		{"**[!te]", "ten", true, true},
		{"**[!ten]", "ten", false, false},
		{"t[a-g]n", "ten", true, true},
		{"t[!a-g]n", "ten", false, false},
		{"t[!a-g]n", "ton", true, true},
		{"t[^a-g]n", "ton", true, true},
		{"a[]]b", "a]b", true, true},
		{"a[]-]b", "a-b", true, true},
		{"a[]-]b", "a]b", true, true},
		{"a[]-]b", "aab", false, false},
		{"a[]a-]b", "aab", true, true},
		{"]", "]", true, true},
		{"a[c-c]st", "acrt", false, false},
		{"a[c-c]rt", "acrt", true, true},
		{"[!]-]", "]", false, false},
		{"[!]-]", "a", true, true},
		{"\\[ab]", "[ab]", true, true},
		{"[[]ab]", "[ab]", true, true},
		{"[[:]ab]", "[ab]", true, true},
		{"[[::]ab]", "[ab]", false, false},
		{"[[:digit]ab]", "[ab]", true, true},
		{"[\\[:]ab]", "[ab]", true, true},
		{"[\\\\-^]", "]", true, true},
		{"[\\\\-^]", "[", false, false},
		{"[\\-_]", "-", true, true},
		{"[\\]]", "]", true, true},
		{"[\\]]", "\\]", false, false},
		{"[\\]]", "\\", false, false},
		{"a[]b", "ab", false, false},
		{"a[]b", "a[]b", false, false},
		{"ab[", "ab[", false, false},
		{"[!", "ab", false, false},
		{"[-", "ab", false, false},
		{"[-]", "-", true, true},
		{"[a-", "-", false, false},
		{"[!a-", "-", false, false},
		{"[--A]", "-", true, true},
		{"[--A]", "5", true, true},
		{"[ --]", " ", true, true},
		{"[ --]", "$", true, true},
		{"[ --]", "-", true, true},
		{"[ --]", "0", false, false},
		{"[---]", "-", true, true},
		{"[------]", "-", true, true},
		{"[a-e-n]", "j", false, false},
		{"[a-e-n]", "-", true, true},
		{"[!------]", "a", true, true},
		{"[]-a]", "[", false, false},
		{"[]-a]", "^", true, true},
		{"[!]-a]", "^", false, false},
		{"[!]-a]", "[", true, true},
		{"[a^bc]", "^", true, true},
		{"[a-]b]", "-b]", true, true},
		{"[\\]", "\\", false, false},
		{"[\\\\]", "\\", true, true},
		{"[!\\\\]", "\\", false, false},
		{"[A-\\\\]", "G", true, true},
		{"[,]", ",", true, true},
		{"[\\\\,]", ",", true, true},
		{"[\\\\,]", "\\", true, true},
		{"[,-.]", "-", true, true},
		{"[,-.]", "+", false, false},
		{"[,-.]", "-.]", false, false},
		{"[\\1-\\3]", "2", true, true},
		{"[\\1-\\3]", "3", true, true},
		{"[\\1-\\3]", "4", false, false},
		{"[[-\\]]", "\\", true, true},
		{"[[-\\]]", "[", true, true},
		{"[[-\\]]", "]", true, true},
		{"[[-\\]]", "-", false, false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
		{"[\xc3]", "\xc3", true, true}, // bytes above 0x7f are plain bytes
		{"[\x80-\xff]", "\xe9", true, true},

		// POSIX classes.
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
		{"[[:digit:][:upper:][:space:]]", "a", false, false},
		{"[[:digit:][:upper:][:space:]]", "A", true, true},
		{"[[:digit:][:upper:][:space:]]", "1", true, true},
		{"[[:digit:][:upper:][:spaci:]]", "1", false, false},
		{"[[:digit:][:upper:][:space:]]", " ", true, true},
		{"[[:digit:][:upper:][:space:]]", ".", false, false},
		{"[[:digit:][:punct:][:space:]]", ".", true, true},
		{"[[:xdigit:]]", "5", true, true},
		{"[[:xdigit:]]", "f", true, true},
		{"[[:xdigit:]]", "D", true, true},
		{"[[:xdigit:]]", "g", false, false},
		{"[[:alpha:][:digit:][:upper:]]", "5", true, true},
		{"[[:lower:]]", "a", true, true},
		{"[[:lower:]]", "A", false, false},
		{"[[:space:]]", "\n", true, true},
		{"[[:space:]]", "\v", false, false},
		{"[[:space:]]", "\f", false, false},
		{"[[:cntrl:]]", "\x7f", true, true},
		{"[[:graph:]]", "~", true, true},
		{"[[:print:]]", "\x7f", false, false},
		{"[[:alpha:]]", "\xe9", false, false},
		{"[a-c[:digit:]x-z]", "5", true, true},
		{"[a-c[:digit:]x-z]", "b", true, true},
		{"[a-c[:digit:]x-z]", "y", true, true},
		{"[a-c[:digit:]x-z]", "q", false, false},
	} {
		if got := wildmatch(tc.pattern, tc.text, true); got != tc.path {
			t.Errorf("wildmatch(%q, %q, WM_PATHNAME) = %v, want %v", tc.pattern, tc.text, got, tc.path)
		}
		if got := wildmatch(tc.pattern, tc.text, false); got != tc.plain {
			t.Errorf("wildmatch(%q, %q, 0) = %v, want %v", tc.pattern, tc.text, got, tc.plain)
		}
	}
}

// gitDowild is dowild exactly as git 2.39 has it: its "advance faster"
// loop answers WM_NOMATCH where dowild returns an abort code. It exists to
// show that the difference only affects speed (TestPruningKeepsResults).
func gitDowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pc := pat[p]
		tc := at(text, t)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			p++
			if at(pat, p) != tc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prev := p - 2
				for at(pat, p) == '*' {
					p++
				}
				switch {
				case !pathname:
					matchSlash = true
				case (prev < 0 || pat[prev] == '/') &&
					(p == len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')):
					if at(pat, p) == '/' && gitDowild(pat[p+1:], text[t:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && pat[p] == '/' {
				i := strings.IndexByte(text[t:], '/')
				if i < 0 {
					return wmNoMatch
				}
				t += i
				continue
			}
			for tc != 0 {
				if lit := pat[p]; !isGlobSpecial(lit) {
					for {
						tc = at(text, t)
						if tc == 0 || (!matchSlash && tc == '/') || tc == lit {
							break
						}
						t++
					}
					if tc != lit {
						return wmNoMatch // the only difference from dowild
					}
				}
				if r := gitDowild(pat[p:], text[t:], pathname); r != wmNoMatch {
					if !matchSlash || r != wmAbortToStarStar {
						return r
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				t++
				tc = at(text, t)
			}
			return wmAbortAll
		case '[':
			end, in, ok := bracket(pat, p, tc)
			if !ok {
				return wmAbortAll
			}
			if !in || (pathname && tc == '/') {
				return wmNoMatch
			}
			p = end
		default: // a literal byte
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// TestPruningKeepsResults checks on many small random patterns and texts
// that dowild, which keeps wildmatch's abort codes where git's fast path
// drops them, gives the same answers as git's exact code.
func TestPruningKeepsResults(t *testing.T) {
	pieces := []string{"a", "b", "/", "*", "*", "**", "?", "[ab]", "[!a]", "\\*", "a*", "/**/", "**/"}
	texts := []string{"a", "b", "/", "*"}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for i := 0; i < n; i++ {
		var pb, tb strings.Builder
		for k := rng.IntN(6); k >= 0; k-- {
			pb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		for k := rng.IntN(9); k > 0; k-- {
			tb.WriteString(texts[rng.IntN(len(texts))])
		}
		pat, text := pb.String(), tb.String()
		for _, pathname := range []bool{true, false} {
			got := dowild(pat, text, pathname) == wmMatch
			want := gitDowild(pat, text, pathname) == wmMatch
			if got != want {
				t.Fatalf("dowild(%q, %q, %v) = %v, git's code says %v", pat, text, pathname, got, want)
			}
		}
	}
}

// TestWildmatchNotExponential guards against backtracking blow-ups: each of
// these takes git 2.39 itself seconds or more, and a few microseconds here.
func TestWildmatchNotExponential(t *testing.T) {
	start := time.Now()
	for _, tc := range [][2]string{
		{"*a*a*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 100) + "x"},
		{"*a*a*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 100) + "/x"},
		{"**/a*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("a/", 50) + "x"},
		{"**/x/**/x/**/x/**/x/**/x/**/y", strings.Repeat("x/", 60) + "z"},
		{"**a**a**a**a**a**a**a**a**b", strings.Repeat("a", 100) + "/x"},
		{"*?*?*?*?*?*?*?*?*?*?*?*?*?*/", strings.Repeat("a", 100) + "x"},
		{"*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*[a]*b", strings.Repeat("a", 100) + "x"},
	} {
		for _, pathname := range []bool{true, false} {
			if wildmatch(tc[0], tc[1], pathname) {
				t.Errorf("wildmatch(%q, %q) matched", tc[0], tc[1])
			}
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("adversarial patterns took %v", d)
	}
}
