package ignore

import (
	"fmt"
	"strings"
	"testing"
)

// rule is one row of the single-file rules table: the content of one
// .gitignore, one path relative to the directory holding it, and whether git
// ignores that path. Every row is checked twice: against this package, with
// the file at the root and again in a subdirectory, and (TestRulesAgainstGit)
// against `git check-ignore`.
type rule struct {
	gitignore string
	path      string
	dir       bool
	want      bool
}

// rules covers SPEC §9.2 (gitignore(5) and wildmatch.c), grouped by rule.
var rules = []rule{
	// SPEC §9.2: blank lines and '#' comments are skipped; "\#" and "\!"
	// escape a leading '#' or '!'.
	{"\n\n# foo\n", "# foo", false, false},
	{"#foo\n", "#foo", false, false},
	{"\\#foo\n", "#foo", false, true},
	{" #foo\n", " #foo", false, true}, // only a '#' in column one starts a comment
	{"\\!bang\n", "!bang", false, true},
	{"!bang\n", "bang", false, false},
	{"!bang\n", "!bang", false, false},
	{"a\\#b\n", "a#b", false, true},

	// SPEC §9.2: trailing spaces are stripped unless escaped; tabs stay.
	{"foo   \n", "foo", false, true},
	{"foo   \n", "foo ", false, false},
	{"foo\\ \n", "foo ", false, true},
	{"foo\\ \n", "foo", false, false},
	{"foo\\  \n", "foo ", false, true},
	{"foo \\ \n", "foo  ", false, true},
	{"foo\t\n", "foo\t", false, true},
	{"foo\t\n", "foo", false, false},
	{" foo\n", " foo", false, true}, // leading spaces are significant
	{" foo\n", "foo", false, false},
	{"foo\\\n", "foo\\", false, false}, // a trailing lone backslash never matches
	{"foo\\\n", "foo", false, false},

	// SPEC §9.2: one CR before LF is stripped; a UTF-8 BOM starts the file.
	{"foo\r\n", "foo", false, true},
	{"foo\r\n", "foo\r", false, false},
	{"foo\r\r\n", "foo\r", false, true},
	{"foo\r", "foo", false, true}, // last line without LF
	{"\xef\xbb\xbffoo\n", "foo", false, true},
	{"\xef\xbb\xbf#foo\nbar\n", "bar", false, true},
	{"bar\n\xef\xbb\xbffoo\n", "\xef\xbb\xbffoo", false, true}, // only at file start
	{"bar\n\xef\xbb\xbffoo\n", "foo", false, false},
	{"foo\x00bar\n", "foo", false, true}, // git reads lines as C strings

	// SPEC §9.2: '!' negates; the last matching line wins.
	{"*.log\n!keep.log\n", "keep.log", false, false},
	{"*.log\n!keep.log\n", "other.log", false, true},
	{"!keep.log\n*.log\n", "keep.log", false, true},
	{"foo\n!foo\nfoo\n", "foo", false, true},
	{"!*\n", "x", false, false},

	// SPEC §9.2: a trailing '/' matches directories only.
	{"build/\n", "build", true, true},
	{"build/\n", "build", false, false},
	{"build/\n", "src/build", true, true},
	{"/build/\n", "build", true, true},
	{"/build/\n", "src/build", true, false},
	{"a/b/\n", "a/b", true, true},
	{"a/b/\n", "a/b", false, false},
	{"*/\n", "x", true, true},
	{"*/\n", "x", false, false},
	{"foo//\n", "foo", true, false}, // only one slash is removed; "foo/" can never match
	{"!/\n", "x", false, false},
	{"/\n", "x", true, false},
	{"build\n", "build", true, true}, // no slash: files and directories
	{"build\n", "build", false, true},

	// SPEC §9.2: a '/' at the start or in the middle anchors the pattern
	// to the .gitignore's directory; otherwise the basename matches at
	// any depth.
	{"/foo\n", "foo", false, true},
	{"/foo\n", "x/foo", false, false},
	{"foo\n", "x/y/foo", false, true},
	{"a/foo\n", "a/foo", false, true},
	{"a/foo\n", "x/a/foo", false, false},
	{"a/*.c\n", "a/x.c", false, true},
	{"a/*.c\n", "a/b/x.c", false, false},
	{"doc/frotz/\n", "doc/frotz", true, true},
	{"doc/frotz/\n", "a/doc/frotz", true, false},
	{"frotz/\n", "a/frotz", true, true},
	{"//foo\n", "foo", false, false},

	// SPEC §9.2: '*' and '?' never match '/'.
	{"*.c\n", "x.c", false, true},
	{"*.c\n", "y/x.c", false, true},
	{"*.c\n", ".c", false, true},
	{"*.c\n", "x.cc", false, false},
	{"f*o\n", "foo", false, true},
	{"f*o\n", "fo", false, true},
	{"f?o\n", "fxo", false, true},
	{"f?o\n", "fo", false, false},
	{"a/?/c\n", "a/b/c", false, true},
	{"a/??/c\n", "a/b/c", false, false},
	{"a*/c\n", "ab/c", false, true},
	{"a*/c\n", "a/c", false, true},
	{"a*/c\n", "ab/x/c", false, false},
	{"a/*\n", "a/b/c", false, false}, // the path itself only; parent a/b matches
	{"*\n", "anything", false, true},
	{"x/*/y\n", "x/a/y", false, true},
	{"x/*/y\n", "x/y", false, false},

	// SPEC §9.2: bracket expressions.
	{"[abc].txt\n", "b.txt", false, true},
	{"[abc].txt\n", "d.txt", false, false},
	{"[!abc].txt\n", "d.txt", false, true},
	{"[!abc].txt\n", "a.txt", false, false},
	{"[^abc].txt\n", "d.txt", false, true},
	{"[^abc].txt\n", "c.txt", false, false},
	{"[a-c]x\n", "bx", false, true},
	{"[a-c]x\n", "dx", false, false},
	{"[z-a]x\n", "zx", false, true},  // 'z' is a member before '-' makes a range,
	{"[z-a]x\n", "ax", false, false}, // and the reversed range itself is empty
	{"[z-a]x\n", "mx", false, false},
	{"[]]x\n", "]x", false, true}, // ']' first is literal
	{"[]-a]x\n", "^x", false, true},
	{"[!]]x\n", "ax", false, true},
	{"[!]]x\n", "]x", false, false},
	{"[a-]x\n", "-x", false, true}, // '-' last is literal
	{"[-a]x\n", "-x", false, true}, // '-' first is literal
	{"[\\]]x\n", "]x", false, true},
	{"[\\-]x\n", "-x", false, true},
	{"[a\\-c]x\n", "bx", false, false},
	{"[a\\-c]x\n", "-x", false, true},
	{"[\\a-c]x\n", "bx", false, true},
	{"[a-\\c]x\n", "bx", false, true},
	{"[a-c-e]x\n", "-x", false, true}, // '-' right after a range is literal
	{"[a-c-e]x\n", "dx", false, false},
	{"[[]x\n", "[x", false, true},
	{"[\n", "[", false, false}, // unmatched '[': the pattern never matches
	{"a[\n", "a[", false, false},
	{"[ab\n", "[ab", false, false},
	{"[ab\n", "a", false, false},
	{"[]\n", "[]", false, false},
	{"[!]\n", "[!]", false, false},
	{"a[/]b\n", "a/b", false, false}, // brackets never match '/' in a path
	{"[é]\n", "é", false, false},     // bytes, not runes
	{"[\xc3][\xa9]\n", "é", false, true},

	// SPEC §9.2: POSIX character classes, with git's ASCII-only ctype.
	{"[[:digit:]]x\n", "1x", false, true},
	{"[[:digit:]]x\n", "ax", false, false},
	{"[[:alpha:]]x\n", "Qx", false, true},
	{"[[:alpha:]]x\n", "1x", false, false},
	{"[[:alnum:]]x\n", "1x", false, true},
	{"[[:alnum:]]x\n", "_x", false, false},
	{"[[:upper:]]*\n", "Foo", false, true},
	{"[[:upper:]]*\n", "foo", false, false},
	{"[[:lower:]]*\n", "foo", false, true},
	{"[[:lower:]]*\n", "Foo", false, false},
	{"[[:xdigit:]]x\n", "fx", false, true},
	{"[[:xdigit:]]x\n", "gx", false, false},
	{"[[:punct:]]x\n", "_x", false, true},
	{"[[:punct:]]x\n", "~x", false, true},
	{"[[:punct:]]x\n", "ax", false, false},
	{"[[:space:]]x\n", " x", false, true},
	{"[[:space:]]x\n", "\tx", false, true},
	{"[[:space:]]x\n", "\vx", false, false}, // git's isspace is " \t\n\r"
	{"[[:space:]]x\n", "\fx", false, false},
	{"[[:blank:]]x\n", "\tx", false, true},
	{"[[:blank:]]x\n", "\nx", false, false},
	{"[[:cntrl:]]x\n", "\x01x", false, true},
	{"[[:cntrl:]]x\n", " x", false, false},
	{"[[:print:]]x\n", " x", false, true},
	{"[[:graph:]]x\n", " x", false, false},
	{"[[:graph:]]x\n", "!x", false, true},
	{"[[:alpha:][:digit:]]x\n", "5x", false, true},
	{"[[:digit:]-z]\n", "-", false, true}, // '-' after a class is literal
	{"[[:digit:]-z]\n", "z", false, true},
	{"[[:digit:]-z]\n", "a", false, false},
	{"[![:digit:]]x\n", "ax", false, true},
	{"[![:digit:]]x\n", "1x", false, false},
	{"[[:foo:]]x\n", "fx", false, false}, // unknown class: never matches
	{"[[:alpha:]x\n", "ax", false, false},
	{"[[:]x\n", "[x", false, true}, // no ":]": '[' and ':' are members
	{"[[:]x\n", ":x", false, true},

	// SPEC §9.2: '\x' matches x literally.
	{"\\*\n", "*", false, true},
	{"\\*\n", "a", false, false},
	{"\\?\n", "?", false, true},
	{"\\?\n", "a", false, false},
	{"a\\b\n", "ab", false, true},
	{"\\[ab]\n", "[ab]", false, true},
	{"\\[ab]\n", "a", false, false},
	{"*\\*\n", "a*", false, true},
	{"a\\*b\n", "a*b", false, true},
	{"a\\*b\n", "axb", false, false},

	// SPEC §9.2: "**" forms.
	{"**/foo\n", "foo", false, true},
	{"**/foo\n", "a/b/foo", false, true},
	{"**/foo/bar\n", "foo/bar", false, true},
	{"**/foo/bar\n", "x/y/foo/bar", false, true},
	{"abc/**\n", "abc/x", false, true},
	{"abc/**\n", "abc", true, false}, // "inside", not the directory itself
	{"a/**/b\n", "a/b", false, true},
	{"a/**/b\n", "a/x/b", false, true},
	{"a/**/b\n", "a/x/y/b", false, true},
	{"a/**/b\n", "ab", false, false},
	{"a/**/**/b\n", "a/b", false, true},
	{"**\n", "x", false, true},
	{"/**\n", "x", false, true},
	{"**/\n", "x", true, true},
	{"**/\n", "x", false, false},
	{"foo/**/\n", "foo/a", true, true},
	{"foo/**/\n", "foo/a", false, false},
	{"a**b\n", "axb", false, true}, // any other "**" is '*'
	{"**foo\n", "xfoo", false, true},
	{"a/**b\n", "a/xb", false, true},
	{"a/**b\n", "a/x/yb", false, false},
	{"*a**/b\n", "xa/b", false, true},
	{"*a**/b\n", "xa/y/b", false, false},
	// git compares the literal head "a" separately and wildmatches the
	// rest, so "**/" after it acts as a leading "**/": a git quirk.
	{"a**/b\n", "ax/y/b", false, true},
	{"a**/b\n", "a/b", false, true},
	{"x/a**/b\n", "x/az/q/b", false, true},
	{"a/x**/b\n", "a/xy/z/b", false, true},
	{"foo/**/*.c\n", "foo/x/y.c", false, true},
	{"foo/**/*.c\n", "foo/y.c", false, true},
	{"foo/**/*.c\n", "bar/foo/y.c", false, false},
	{"a/\\**/b\n", "a/x/b", false, false}, // an escaped '*' is not part of "**"
	{"a/\\**/b\n", "a/*x/b", false, true},
	{"a/**\\/b\n", "a/x/b", false, true},
}

// TestRules checks every row of the rules table, with the .gitignore at the
// root (base "") and in a subdirectory (base "sub/dir"). SPEC §9.2.
func TestRules(t *testing.T) {
	for i, tc := range rules {
		for _, base := range []string{"", "sub/dir"} {
			p := tc.path
			if base != "" {
				p = base + "/" + tc.path
			}
			m := New(ParsePatterns([]byte(tc.gitignore), base, ".gitignore"))
			if got := m.Match(p, tc.dir); got != tc.want {
				t.Errorf("row %d: patterns %q, Match(%q, dir=%v) = %v, want %v (explain %q)",
					i, tc.gitignore, p, tc.dir, got, tc.want, m.Explain(p, tc.dir))
			}
		}
	}
}

// TestRulesAgainstGit runs the rules table through `git check-ignore`, so
// the expectations above are git's, not ours. Each row gets its own
// directory rN holding its .gitignore. Rows whose path has an ignored parent
// are left out: git reports the parent's pattern for them, while Match
// looks at the path alone. SPEC §9.2.
func TestRulesAgainstGit(t *testing.T) {
	r := newGitRepo(t)
	var paths []string
	want := map[string]bool{}
	for i, tc := range rules {
		base := fmt.Sprintf("r%d", i)
		p := base + "/" + tc.path
		m := New(ParsePatterns([]byte(tc.gitignore), base, base+"/.gitignore"))
		if parentIgnored(m, p) {
			continue
		}
		r.writeFile(t, base+"/.gitignore", []byte(tc.gitignore))
		if tc.dir {
			r.mkdir(t, p)
		} else {
			r.writeFile(t, p, nil)
		}
		paths = append(paths, p)
		want[p] = tc.want
	}
	if len(paths) < len(rules)*9/10 {
		t.Fatalf("only %d of %d rows can be checked against git", len(paths), len(rules))
	}
	got := r.checkIgnore(t, "", paths)
	for i, tc := range rules {
		p := fmt.Sprintf("r%d/%s", i, tc.path)
		w, ok := want[p]
		if !ok {
			continue
		}
		explain, ok := got[p]
		if !ok {
			t.Errorf("row %d: git check-ignore did not report %q", i, p)
			continue
		}
		if ignored := explainIgnores(explain); ignored != w {
			t.Errorf("row %d: patterns %q, path %q (dir=%v): git says ignored=%v (%q), table says %v",
				i, tc.gitignore, tc.path, tc.dir, ignored, explain, w)
		}
		m := New(ParsePatterns([]byte(tc.gitignore), fmt.Sprintf("r%d", i), fmt.Sprintf("r%d/.gitignore", i)))
		if ours := m.Explain(p, tc.dir); ours != explain {
			t.Errorf("row %d: Explain(%q) = %q, git check-ignore -v says %q", i, p, ours, explain)
		}
	}
}

// explainIgnores reports whether a "source:line:pattern" explanation (as
// from Explain or git check-ignore -v) means the path is ignored.
func explainIgnores(explain string) bool {
	f := strings.SplitN(explain, ":", 3)
	return len(f) == 3 && !strings.HasPrefix(f[2], "!")
}

// parentIgnored reports whether any proper parent directory of p is matched.
func parentIgnored(m *Matcher, p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && m.Match(p[:i], true) {
			return true
		}
	}
	return false
}

// TestBase checks that patterns apply only below their base directory.
// SPEC §9.2: a .gitignore governs its own directory and everything below.
func TestBase(t *testing.T) {
	for _, tc := range []struct {
		patterns, base, path string
		dir, want            bool
	}{
		{"foo", "sub", "sub/foo", false, true},
		{"foo", "sub", "sub/x/foo", false, true},
		{"foo", "sub", "foo", false, false},
		{"foo", "sub", "subx/foo", false, false},
		{"sub", "sub", "sub", true, false}, // the directory itself is outside
		{"*", "sub", "sub", true, false},
		{"*", "sub", "other", false, false},
		{"*", "sub", "sub/x", false, true},
		{"/foo", "sub", "sub/foo", false, true},
		{"/foo", "sub", "sub/x/foo", false, false},
		{"x/foo", "sub", "sub/x/foo", false, true},
		{"x/foo", "sub", "x/foo", false, false},
		{"**/foo", "a/b", "a/b/foo", false, true},
		{"**/foo", "a/b", "a/foo", false, false},
		{"foo", "/sub/", "sub/foo", false, true}, // surrounding slashes are tolerated
		{"foo", ".", "foo", false, true},
		{"foo", "", "", false, false}, // the empty path (the root) is never ignored
	} {
		m := New(ParsePatterns([]byte(tc.patterns), tc.base, "x"))
		if got := m.Match(tc.path, tc.dir); got != tc.want {
			t.Errorf("patterns %q base %q: Match(%q, %v) = %v, want %v", tc.patterns, tc.base, tc.path, tc.dir, got, tc.want)
		}
	}
}

// TestPrecedence checks SPEC §9.2's precedence: the highest group with a
// match decides, and within a group the last matching line.
func TestPrecedence(t *testing.T) {
	excludes := ParsePatterns([]byte("*.secret\n.env*\n!.env.example\n"), "", "excludes")
	info := ParsePatterns([]byte("*.bak\n!keep.secret\n"), "", ".git/info/exclude")
	root := ParsePatterns([]byte("!x.bak\n*.o\nbuild/\n"), "", ".gitignore")
	sub := ParsePatterns([]byte("!*.o\n!build/\n*.bak\n"), "sub", "sub/.gitignore")
	base := New(excludes, info)
	m := base.Push(root)
	msub := m.Push(sub)
	for _, tc := range []struct {
		m     *Matcher
		path  string
		dir   bool
		want  bool
		whyIs string
	}{
		{m, "a.secret", false, true, "excludes:1:*.secret"},
		{m, "keep.secret", false, false, ".git/info/exclude:2:!keep.secret"},
		{m, ".env", false, true, "excludes:2:.env*"},
		{m, ".env.example", false, false, "excludes:3:!.env.example"},
		{m, "y.bak", false, true, ".git/info/exclude:1:*.bak"},
		{m, "x.bak", false, false, ".gitignore:1:!x.bak"},
		{m, "a.o", false, true, ".gitignore:2:*.o"},
		{m, "build", true, true, ".gitignore:3:build/"},
		{m, "README", false, false, ""},
		{msub, "sub/a.o", false, false, "sub/.gitignore:1:!*.o"},
		{msub, "sub/build", true, false, "sub/.gitignore:2:!build/"},
		{msub, "sub/x.bak", false, true, "sub/.gitignore:3:*.bak"},
		{msub, "other/a.o", false, true, ".gitignore:2:*.o"}, // sub's patterns stay in sub
		{msub, "a.secret", false, true, "excludes:1:*.secret"},
		{base, "x.bak", false, true, ".git/info/exclude:1:*.bak"},
	} {
		if got := tc.m.Match(tc.path, tc.dir); got != tc.want {
			t.Errorf("Match(%q, %v) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
		if got := tc.m.Explain(tc.path, tc.dir); got != tc.whyIs {
			t.Errorf("Explain(%q, %v) = %q, want %q", tc.path, tc.dir, got, tc.whyIs)
		}
	}
}

// TestPushSharesParent checks that Push leaves its receiver untouched, so a
// walker can reuse a directory's matcher for each of its subdirectories.
func TestPushSharesParent(t *testing.T) {
	m := New(ParsePatterns([]byte("*.o\n"), "", "root"))
	a := m.Push(ParsePatterns([]byte("!*.o\n"), "a", "a"))
	b := m.Push(ParsePatterns([]byte("*.txt\n"), "b", "b"))
	for _, tc := range []struct {
		m    *Matcher
		path string
		want bool
	}{
		{m, "a/x.o", true},
		{m, "b/x.txt", false},
		{a, "a/x.o", false},
		{a, "b/x.o", true},
		{b, "b/x.txt", true},
		{b, "b/x.o", true},
		{b, "a/x.o", true},
	} {
		if got := tc.m.Match(tc.path, false); got != tc.want {
			t.Errorf("Match(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if a.parent != m || b.parent != m {
		t.Error("Push copied its parent instead of sharing it")
	}
	if m.Push(nil) != m {
		t.Error("Push of an empty group should return the receiver")
	}
}

// TestParentNotConsidered documents that Match evaluates only the path
// itself: excluding a directory is enforced by the walker not descending.
// SPEC §9.2.
func TestParentNotConsidered(t *testing.T) {
	m := New(ParsePatterns([]byte("build/\n!*.keep\n"), "", ".gitignore"))
	for _, tc := range []struct {
		path string
		dir  bool
		want bool
	}{
		{"build", true, true},
		{"build/x.o", false, false},    // git would never look here
		{"build/x.keep", false, false}, // nor re-include this
	} {
		if got := m.Match(tc.path, tc.dir); got != tc.want {
			t.Errorf("Match(%q, %v) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
}

// TestNilAndEmptyMatcher checks that matchers without patterns ignore
// nothing.
func TestNilAndEmptyMatcher(t *testing.T) {
	var nilM *Matcher
	for _, m := range []*Matcher{nilM, New(), {}, nilM.Push(nil)} {
		if m.Match("x", false) || m.Explain("x", true) != "" {
			t.Errorf("matcher %+v ignored x", m)
		}
	}
}

// TestParsePatterns checks line handling and the recorded line numbers and
// texts. SPEC §9.2.
func TestParsePatterns(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string // "line:text" of each kept pattern
	}{
		{"", nil},
		{"\n\n\n", nil},
		{"# c\nfoo\n\nbar", []string{"2:foo", "4:bar"}},
		{"foo  \r\nbar\\ \n", []string{"1:foo", "2:bar\\ "}},
		{"\xef\xbb\xbf# c\n!x/\n", []string{"2:!x/"}},
		{"!\n/\n!/\n//\n \n\r\nok\n", []string{"7:ok"}}, // lines that can never match are dropped
		{"a\x00b\n", []string{"1:a"}},
		{"\\#a\n\\!b\n", []string{"1:\\#a", "2:\\!b"}},
	} {
		var got []string
		for _, p := range ParsePatterns([]byte(tc.src), "", "f") {
			got = append(got, fmt.Sprintf("%d:%s", p.line, p.text))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("ParsePatterns(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestCompileKinds checks that patterns take the intended fast path.
func TestCompileKinds(t *testing.T) {
	for _, tc := range []struct {
		line     string
		kind     kind
		anchored bool
		pattern  string
	}{
		{"foo", kindLiteral, false, "foo"},
		{"foo/", kindLiteral, false, "foo"},
		{"/foo", kindLiteral, true, "foo"},
		{"a/b", kindLiteral, true, "a/b"},
		{"*.log", kindSuffix, false, "*.log"},
		{"*", kindSuffix, false, "*"},
		{"!*.o/", kindSuffix, false, "*.o"},
		{"*.l?g", kindGlob, false, "*.l?g"},
		{"/*.log", kindGlob, true, "*.log"},
		{"**/x", kindAnyDir, true, "**/x"},
		{"**/.aws/credentials", kindAnyDir, true, "**/.aws/credentials"},
		{"**/a*", kindGlob, true, "**/a*"},
		{".env*", kindPrefix, false, ".env*"},
		{"id_rsa*/", kindPrefix, false, "id_rsa*"},
		{"a*b*", kindGlob, false, "a*b*"},
		{"a\\ ", kindGlob, false, "a\\ "},
	} {
		ps := ParsePatterns([]byte(tc.line), "", "f")
		if len(ps) != 1 {
			t.Fatalf("%q: got %d patterns", tc.line, len(ps))
		}
		p := ps[0]
		if p.kind != tc.kind || p.anchored != tc.anchored || p.pattern != tc.pattern {
			t.Errorf("%q: kind %d anchored %v pattern %q, want %d %v %q",
				tc.line, p.kind, p.anchored, p.pattern, tc.kind, tc.anchored, tc.pattern)
		}
	}
}

// The prefix and any-directory fast paths decide as wildmatch does.
func TestFastKindsAgreeWithWildmatch(t *testing.T) {
	paths := []string{".env", ".env.local", "x/.env.prod", "env", "a.env", ".aws/credentials",
		"home/.aws/credentials", "home/x.aws/credentials", ".aws/credentials/x", "aws/credentials",
		"id_rsa", "id_rsa.pub", "keys/id_rsa_old", "x", "a/x", "ax", "a/bx", "x/a"}
	for _, line := range []string{".env*", "id_rsa*", "**/.aws/credentials", "**/x", "**/a/x"} {
		fast := ParsePatterns([]byte(line), "", "f")[0]
		slow := fast
		slow.kind = kindGlob
		for _, path := range paths {
			base := path[strings.LastIndexByte(path, '/')+1:]
			for _, dir := range []bool{false, true} {
				if a, b := fast.match(path, base, dir), slow.match(path, base, dir); a != b {
					t.Errorf("%q on %q (dir %v): fast %v, wildmatch %v", line, path, dir, a, b)
				}
			}
		}
	}
}

// The per-group byte filter never rejects a path one of its patterns
// matches, and does reject the common case.
func TestByteFilterNeverRejectsAMatch(t *testing.T) {
	src := ".env*\n*.pem\n/build\na/b\n**/.aws/credentials\ncredentials.json\n!keep.pem\nnode_modules/\n"
	ps := ParsePatterns([]byte(src), "", "f")
	f := newByteFilter(ps)
	if !f.valid {
		t.Fatal("no glob here, yet the filter is off")
	}
	paths := []string{".env", ".env.x", "x/.env.y", "k.pem", "keep.pem", "build", "a/b", "x/a/b",
		".aws/credentials", "h/.aws/credentials", "credentials.json", "node_modules", "main.go", "README.md"}
	for _, path := range paths {
		base := path[strings.LastIndexByte(path, '/')+1:]
		for _, dir := range []bool{false, true} {
			for i := range ps {
				if ps[i].match(path, base, dir) && f.rejects(base) {
					t.Errorf("%q: matched by %q, yet rejected by the filter", path, ps[i].text)
				}
			}
		}
	}
	if !f.rejects("main.go") {
		t.Error("main.go is not rejected")
	}
	if g := newByteFilter(ParsePatterns([]byte("*.log\na*b\n"), "", "f")); g.valid {
		t.Error("a general glob leaves the filter on")
	}
	if g := newByteFilter(ParsePatterns([]byte("*\n"), "", "f")); g.valid {
		t.Error(`"*" leaves the filter on`)
	}
}
