package ignore

import (
	"bytes"
	"strings"
	"testing"
)

// refMatch reports whether the pattern line text (as kept in Pattern.text)
// matches path. It is a direct transcription of git's
// last_matching_pattern_from_list step for one pattern (parse_path_pattern,
// match_basename, match_pathname) with none of compile's precomputation,
// so the fuzzer can check the fast paths against it.
func refMatch(text, base, path string, isDir bool) bool {
	p := strings.TrimPrefix(text, "!")
	plen := len(p)
	mustBeDir := plen > 0 && p[plen-1] == '/'
	if mustBeDir {
		plen--
	}
	noDir := strings.IndexByte(p[:plen], '/') < 0
	nowild := min(simpleLength(p), plen)
	endsWith := p != "" && p[0] == '*' && simpleLength(p[1:]) == len(p)-1
	pat := p[:plen]

	if mustBeDir && !isDir {
		return false
	}
	if base != "" && !strings.HasPrefix(path, base+"/") {
		return false // git only consults a .gitignore inside its directory
	}
	if noDir {
		basename := path[strings.LastIndexByte(path, '/')+1:]
		switch {
		case nowild == plen:
			return pat == basename
		case endsWith:
			return plen-1 <= len(basename) && basename[len(basename)-(plen-1):] == pat[1:]
		}
		return dowild(pat, basename, false) == wmMatch
	}
	prefix := nowild
	if pat[0] == '/' {
		pat = pat[1:]
		prefix--
	}
	name := path
	if base != "" {
		name = path[len(base)+1:]
	}
	if prefix > 0 {
		if prefix > len(name) || name[:prefix] != pat[:prefix] {
			return false
		}
		pat, name = pat[prefix:], name[prefix:]
		if pat == "" && name == "" {
			return true
		}
	}
	return dowild(pat, name, true) == wmMatch
}

// validPath reports whether path is one a walker can produce.
func validPath(path string) bool {
	return path != "" && path[0] != '/' && path[len(path)-1] != '/' &&
		!strings.Contains(path, "//") && strings.IndexByte(path, 0) < 0
}

// FuzzMatch checks that no pattern text and path make Match, Explain or
// wildmatch panic, and that the precompiled matcher agrees with refMatch.
func FuzzMatch(f *testing.F) {
	for _, tc := range rules {
		f.Add(tc.gitignore, tc.path, tc.dir)
	}
	for _, s := range []string{
		"*a*a*a*a*a*a*a*a*a*b", "**/**/**/**/x", "[[:alpha:]", "[[:", "[\\", "a/**\\",
		"[!", "[^]", "[]-]", "\\", "*\\", "**\\/x", "[a-\\", "!", "/", "//", "\xef\xbb\xbf",
	} {
		f.Add(s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/x", false)
	}
	f.Fuzz(func(t *testing.T, patterns, path string, isDir bool) {
		for _, base := range []string{"", "d"} {
			p := path
			if base != "" {
				p = base + "/" + path
			}
			ps := ParsePatterns([]byte(patterns), base, "fuzz")
			m := New(ps)
			got := m.Match(p, isDir)
			explain := m.Explain(p, isDir)
			if got && explain == "" {
				t.Fatalf("Match(%q) true without an explanation", p)
			}
			if !validPath(p) {
				continue
			}
			want := false
			for i := len(ps) - 1; i >= 0; i-- {
				if refMatch(ps[i].text, base, p, isDir) {
					want = !ps[i].negative
					break
				}
			}
			if got != want {
				t.Fatalf("patterns %q base %q: Match(%q, %v) = %v, git's algorithm says %v",
					patterns, base, p, isDir, got, want)
			}
		}
		// The engine itself, on raw inputs, in both modes.
		wildmatch(patterns, path, true)
		wildmatch(patterns, path, false)
	})
}

// FuzzParsePatterns checks that ParsePatterns never panics and that what it
// keeps is sane: one pattern per line at most, line numbers in range, no
// line breaks or NULs in the recorded text.
func FuzzParsePatterns(f *testing.F) {
	for _, tc := range rules {
		f.Add([]byte(tc.gitignore))
	}
	f.Add([]byte("\xef\xbb\xbf# c\r\n!a/\n\\#b \\ \n\x00\n[[:x:]]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ps := ParsePatterns(src, "base", "fuzz")
		lines := bytes.Count(src, []byte("\n")) + 1
		if len(ps) > lines {
			t.Fatalf("%d patterns from %d lines", len(ps), lines)
		}
		prev := 0
		for _, p := range ps {
			if p.line <= prev || p.line > lines {
				t.Fatalf("line %d after %d of %d", p.line, prev, lines)
			}
			prev = p.line
			if strings.ContainsAny(p.text, "\n\x00") || p.pattern == "" {
				t.Fatalf("bad pattern %+v", p)
			}
		}
		m := New(ps)
		for _, path := range []string{"base/a", "base/a/b.c", "base", "x/y"} {
			m.Match(path, false)
			m.Explain(path, true)
		}
	})
}
