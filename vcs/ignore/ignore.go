// Package ignore implements git's ignore rules (gitignore(5), SPEC §9.2) for
// ctxgit's own workspace walker, which does not use go-git's worktree code.
//
// The semantics are a port of git's dir.c (parse_path_pattern,
// match_basename, match_pathname, last_matching_pattern_from_list) and
// wildmatch.c, including their quirks, so that a snapshot contains exactly
// the files `git ls-files --others --exclude-standard` would list.
//
// Intended use by a walker:
//
//	m := ignore.New(excludesFilePatterns, infoExcludePatterns)
//	// on entering directory dir (relative to the walk root, "" for the root):
//	m = m.Push(ignore.ParsePatterns(gitignoreBytes, dir, dir+"/.gitignore"))
//	// for each entry p of dir:
//	if m.Match(p, isDir) { skip it, and never descend into it }
//
// Match evaluates the patterns against the given path only. Git's rule that
// nothing below an excluded directory can be re-included is the walker's job:
// it must not descend into a directory for which Match reported true. Nor
// does Match know about ".git": git never lists it, so the walker skips it.
//
// Results match git's exactly (tests compare them with git 2.39 itself). The
// one deliberate difference is speed: git's wildmatch can take exponential
// time on patterns such as "*a*a*a*a*a*a*a*a*b"; this port keeps the
// pruning that prevents it (see dowild).
//
// Extra pattern groups that do not come from a file (such as ctxgit's secret
// excludes `.env*`, `*.pem`, `id_*`) are built by joining them with "\n" and
// calling ParsePatterns; each element is then read exactly like one line of
// a .gitignore file (so a leading '#' must be escaped as `\#`, trailing
// spaces are dropped unless escaped, and so on).
package ignore

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"
)

// Pattern is one compiled gitignore line.
//
// The matching strategy is decided once, here, rather than per Match call:
// most real-world patterns are plain names or "*.ext" and never need the
// wildmatch engine.
type Pattern struct {
	// pattern is the line without its '!' prefix and trailing '/'; for
	// anchored patterns one leading '/' is removed too, as match_pathname does.
	pattern string
	// prefix is the length of pattern's wildcard-free head. For anchored
	// globs it is compared with plain string equality before wildmatch runs
	// on the rest, exactly as git does (which affects how '**' right after
	// the prefix is treated; see the tests).
	prefix int
	kind   kind
	// anchored patterns (containing a '/' other than a trailing one) match
	// the path relative to base; the others match the basename at any depth.
	anchored bool
	negative bool
	dirOnly  bool
	// base is the directory (relative to the walk root, no slashes at either
	// end, "" for the root) the pattern applies to.
	base string

	source string
	line   int
	text   string // the line after trailing-space trimming, for Explain
}

// kind selects how a Pattern is matched.
type kind uint8

const (
	kindNever   kind = iota // empty pattern (e.g. "!" or "/"): matches nothing
	kindLiteral             // no wildcard: string equality
	kindSuffix              // "*literal" basename pattern: suffix check
	kindPrefix              // "literal*" basename pattern: prefix check
	kindAnyDir              // "**/literal/path" anchored: path or path suffix
	kindGlob                // everything else: wildmatch
)

// String returns "source:line:pattern" in the form `git check-ignore -v`
// prints (including a leading '!' and trailing '/').
func (p *Pattern) String() string {
	return p.source + ":" + strconv.Itoa(p.line) + ":" + p.text
}

// utf8BOM is skipped at the start of a file, as git's skip_utf8_bom does.
var utf8BOM = []byte("\xef\xbb\xbf")

// ParsePatterns compiles gitignore-format source. base is the slash-separated
// directory (relative to the walk root, "" for the root) the patterns are
// relative to; surrounding slashes and a lone "." are tolerated. source names
// the file for diagnostics (kept in Pattern for Explain); line numbers count
// from 1 like git's.
//
// Lines are handled as git's add_patterns_from_buffer does: blank lines and
// lines starting with '#' are skipped, one CR before the LF is dropped, a
// NUL ends the line (git works on C strings), and unescaped trailing spaces
// are trimmed. Lines that can never match anything (such as "!" or "/") are
// dropped.
//
// To build a group from a plain list of patterns, join them with "\n":
//
//	ParsePatterns([]byte(strings.Join(list, "\n")), "", "ctxgit:secrets")
func ParsePatterns(src []byte, base, source string) []Pattern {
	base = strings.Trim(base, "/")
	if base == "." {
		base = ""
	}
	src = bytes.TrimPrefix(src, utf8BOM)

	var out []Pattern
	for lineno := 1; len(src) > 0; lineno++ {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		// git checks for blank and comment lines before stripping CR, so
		// a line holding only "\r" is an (empty, never-matching) pattern
		// there; dropping it here changes nothing observable.
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i]
		}
		text := trimTrailingSpaces(string(line))
		if p, ok := compile(text, base, source, lineno); ok {
			out = append(out, p)
		}
	}
	return out
}

// trimTrailingSpaces removes trailing ' ' characters unless escaped with a
// backslash, as git's trim_trailing_spaces does. Only spaces count: tabs are
// kept. A line ending in a lone backslash is left untouched.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// compile turns one trimmed line into a Pattern, following git's
// parse_path_pattern. It reports false for patterns that cannot match.
func compile(text, base, source string, line int) (Pattern, bool) {
	p := Pattern{base: base, source: source, line: line, text: text}
	s := text
	if strings.HasPrefix(s, "!") {
		p.negative = true
		s = s[1:]
	}
	// Only one trailing slash is removed: "foo//" is a directory-only
	// pattern "foo/", which (being anchored) can never match. Same as git.
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	if strings.IndexByte(s, '/') >= 0 {
		p.anchored = true
		s = strings.TrimPrefix(s, "/")
	}
	if s == "" {
		return p, false
	}
	p.pattern = s
	p.prefix = simpleLength(s)
	switch {
	case p.prefix == len(s):
		p.kind = kindLiteral
	case !p.anchored && s[0] == '*' && simpleLength(s[1:]) == len(s)-1:
		// git's PATTERN_FLAG_ENDSWITH; only used for basename patterns.
		p.kind = kindSuffix
	case !p.anchored && p.prefix == len(s)-1 && s[len(s)-1] == '*':
		// ".env*", "id_rsa*": a basename has no '/', so the trailing
		// '*' matches any rest, as wildmatch would.
		p.kind = kindPrefix
	case p.anchored && strings.HasPrefix(s, "**/") && simpleLength(s[3:]) == len(s)-3:
		// "**/.aws/credentials": a leading "**/" matches zero or more
		// whole directories (wildmatch with WM_PATHNAME), so the rest
		// matches the whole path or a suffix after a '/'.
		p.kind = kindAnyDir
	default:
		p.kind = kindGlob
	}
	return p, true
}

// simpleLength returns the length of s's prefix free of glob specials,
// like git's simple_length.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// match reports whether p matches path (whose last component is basename).
func (p *Pattern) match(path, basename string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	// A pattern only applies below its own directory: git only consults a
	// .gitignore for paths inside the directory holding it.
	rel := path
	if p.base != "" {
		if len(path) <= len(p.base) || path[len(p.base)] != '/' || path[:len(p.base)] != p.base {
			return false
		}
		rel = path[len(p.base)+1:]
	}
	if !p.anchored {
		switch p.kind {
		case kindLiteral:
			return basename == p.pattern
		case kindSuffix:
			return strings.HasSuffix(basename, p.pattern[1:])
		case kindPrefix:
			return strings.HasPrefix(basename, p.pattern[:len(p.pattern)-1])
		case kindGlob:
			// git matches basenames without WM_PATHNAME; a basename has
			// no '/', so the flag would not change the result anyway.
			return wildmatch(p.pattern, basename, false)
		}
		return false
	}
	switch p.kind {
	case kindLiteral:
		return rel == p.pattern
	case kindAnyDir:
		tail := p.pattern[3:]
		return rel == tail || len(rel) > len(tail) && rel[len(rel)-len(tail)-1] == '/' && rel[len(rel)-len(tail):] == tail
	case kindGlob:
		// Like match_pathname: compare the literal head, then wildmatch
		// only the remainders. This is not just an optimisation; it
		// makes a '**' right after the head count as a leading '**'.
		n := p.prefix
		return len(rel) >= n && rel[:n] == p.pattern[:n] &&
			wildmatch(p.pattern[n:], rel[n:], true)
	}
	return false
}

// Matcher holds pattern groups in increasing precedence. It is immutable:
// Push returns a new Matcher that shares its parent, so a walker can keep
// one Matcher per directory level without copying.
//
// Being immutable, a Matcher is safe for concurrent use. The zero value and
// a nil *Matcher match nothing.
type Matcher struct {
	parent   *Matcher // lower-precedence groups, or nil
	patterns []Pattern
	filter   byteFilter
}

// byteFilter rejects, with two bit tests, a path no pattern of a group can
// match: every pattern but a general glob needs the basename to end with
// its last byte (a literal, "*suffix", "**/literal") or to start with its
// first ("prefix*"). Walks test every entry against the secret patterns
// and each .gitignore on the way down, and almost every entry fails them
// all.
type byteFilter struct {
	valid       bool
	first, last [4]uint64
}

func newByteFilter(patterns []Pattern) byteFilter {
	f := byteFilter{valid: true}
	for i := range patterns {
		p := &patterns[i]
		switch p.kind {
		case kindNever:
		case kindLiteral, kindAnyDir:
			c := p.pattern[len(p.pattern)-1]
			f.last[c>>6] |= 1 << (c & 63)
		case kindSuffix:
			if len(p.pattern) == 1 {
				return byteFilter{} // "*" matches everything
			}
			c := p.pattern[len(p.pattern)-1]
			f.last[c>>6] |= 1 << (c & 63)
		case kindPrefix:
			c := p.pattern[0]
			f.first[c>>6] |= 1 << (c & 63)
		default:
			return byteFilter{}
		}
	}
	return f
}

// rejects reports whether no pattern of the group can match basename.
func (f *byteFilter) rejects(basename string) bool {
	if !f.valid || basename == "" {
		return false
	}
	first, last := basename[0], basename[len(basename)-1]
	return f.first[first>>6]&(1<<(first&63)) == 0 && f.last[last>>6]&(1<<(last&63)) == 0
}

// New returns a matcher with the lowest-precedence groups, given in
// increasing precedence (e.g. core.excludesFile patterns, then
// .git/info/exclude patterns).
func New(groups ...[]Pattern) *Matcher {
	var m *Matcher
	for _, g := range groups {
		m = m.Push(g)
	}
	if m == nil {
		m = &Matcher{}
	}
	return m
}

// Push returns a matcher with one more group that takes precedence over all
// of m's groups (a deeper .gitignore). It does not modify m, and shares m
// rather than copying it. An empty group adds nothing, so m itself is
// returned. The matcher keeps patterns; the caller must not modify it later.
func (m *Matcher) Push(patterns []Pattern) *Matcher {
	if len(patterns) == 0 && m != nil {
		return m
	}
	return &Matcher{parent: m, patterns: patterns, filter: newByteFilter(patterns)}
}

// Match reports whether the slash-separated path (relative to the walk root,
// without leading or trailing slashes) is ignored. isDir says whether the
// path is a directory.
//
// The highest-precedence group with a matching pattern decides; within a
// group the last matching pattern wins; a matching negated pattern means
// "not ignored". Only path itself is evaluated: whether a parent directory
// is ignored is not considered (see the package documentation).
func (m *Matcher) Match(path string, isDir bool) bool {
	p := m.decide(path, isDir)
	return p != nil && !p.negative
}

// Explain returns the deciding pattern as "source:line:pattern", or "" when
// no pattern matches, like `git check-ignore -v`. A negated pattern that
// decides (so the path is not ignored) is returned too, with its '!'.
func (m *Matcher) Explain(path string, isDir bool) string {
	if p := m.decide(path, isDir); p != nil {
		return p.String()
	}
	return ""
}

// decide returns the pattern that determines path's fate, or nil.
func (m *Matcher) decide(path string, isDir bool) *Pattern {
	if path == "" {
		return nil
	}
	basename := path[strings.LastIndexByte(path, '/')+1:]
	for g := m; g != nil; g = g.parent {
		if g.filter.rejects(basename) {
			continue
		}
		for i := len(g.patterns) - 1; i >= 0; i-- {
			if p := &g.patterns[i]; p.match(path, basename, isDir) {
				return p
			}
		}
	}
	return nil
}

// FoldCase returns copies of patterns that match whatever the ASCII case,
// as git matches with core.ignoreCase (wildmatch's WM_CASEFOLD, and
// strcasecmp for literals): match them against paths passed through
// FoldPath. Like git, only ASCII letters fold. A folded path has no
// upper-case letters, so `[:upper:]` becomes `[:alpha:]`, which is what
// WM_CASEFOLD makes of it.
func FoldCase(patterns []Pattern) []Pattern {
	out := make([]Pattern, len(patterns))
	for i, p := range patterns {
		p.pattern = strings.ReplaceAll(FoldPath(p.pattern), "[:upper:]", "[:alpha:]")
		p.base = FoldPath(p.base)
		out[i] = p
	}
	return out
}

// FoldPath lower-cases the ASCII letters of path, and returns path itself
// (no copy) when it has none in upper case.
func FoldPath(path string) string {
	for i := 0; i < len(path); i++ {
		if c := path[i]; 'A' <= c && c <= 'Z' {
			b := []byte(path)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			// b is this function's own: the string shares it rather
			// than copying it again.
			return unsafe.String(&b[0], len(b))
		}
	}
	return path
}
