package ignore

import "strings"

// This file is a port of git's wildmatch.c (git 2.39), kept structurally
// close to the C so the two can be compared line by line. C strings end in
// NUL; here the end of a Go string plays that role (see at).

// Results of dowild. The two abort codes let an enclosing '*' loop stop
// early instead of retrying positions that cannot succeed, which keeps
// matching from going exponential on patterns like "*a*a*a*a*b".
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches pattern. With pathname set (git's
// WM_PATHNAME), wildcards do not match '/' except in the '**' forms.
// Matching is case-sensitive (core.ignoreCase=false).
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// at returns s[i], or 0 past the end of s, mirroring a C NUL terminator.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// isGlobSpecial reports whether c is one of git's glob specials.
func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// dowild matches pat against text and returns one of the wm* results.
// Recursive calls get the rest of the pattern, and a "**" counts as leading
// when it starts pat: like git, this is relative to what the caller passed,
// which is why match_pathname's literal-prefix split matters.
func dowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pc := pat[p]
		tc := at(text, t)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// Literal match with the next character; a trailing
			// backslash compares against NUL and so never matches.
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
				prev := p - 2 // the byte before the first '*', or -1
				for at(pat, p) == '*' {
					p++
				}
				switch {
				case !pathname:
					matchSlash = true
				case (prev < 0 || pat[prev] == '/') &&
					(p == len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')):
					// "**/" may match zero directories: try
					// the rest of the pattern right here first.
					if at(pat, p) == '/' && dowild(pat[p+1:], text[t:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				default:
					// Any other "**" is an ordinary '*'.
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				// A trailing "**" matches everything; a trailing
				// '*' only if no '/' is left.
				if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && pat[p] == '/' {
				// "*/" consumes the rest of this path component;
				// the loop's increment then steps over both slashes.
				i := strings.IndexByte(text[t:], '/')
				if i < 0 {
					return wmNoMatch
				}
				t += i
				continue
			}
			for tc != 0 {
				// When a literal follows the '*', skip straight to
				// its next occurrence (never past a '/' unless
				// the star may match slashes).
				if lit := pat[p]; !isGlobSpecial(lit) {
					for {
						tc = at(text, t)
						if tc == 0 || (!matchSlash && tc == '/') || tc == lit {
							break
						}
						t++
					}
					if tc != lit {
						// git returns WM_NOMATCH here, which
						// throws away the pruning the abort
						// codes exist for: git 2.39 takes
						// seconds on "*a*a*a*a*a*a*a*a*b"
						// against 40 a's and an x. Return what
						// the loop below would have returned
						// on reaching this spot; the result is
						// the same, only faster.
						if tc == 0 {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				if r := dowild(pat[p:], text[t:], pathname); r != wmNoMatch {
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

// bracket matches c against the bracket expression that starts at pat[p]
// (a '['). It returns the index of the closing ']' and whether c is in the
// (possibly negated) set; ok is false for a malformed expression, which
// makes the whole match fail (git's WM_ABORT_ALL).
func bracket(pat string, p int, c byte) (end int, in, ok bool) {
	p++
	pc := at(pat, p)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		p++
		pc = at(pat, p)
	}
	var prevCh byte
	matched := false
	for {
		switch {
		case pc == 0:
			// Unterminated bracket.
			return 0, false, false
		case pc == '\\':
			p++
			pc = at(pat, p)
			if pc == 0 {
				return 0, false, false
			}
			if c == pc {
				matched = true
			}
		case pc == '-' && prevCh != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']':
			p++
			pc = at(pat, p)
			if pc == '\\' {
				p++
				pc = at(pat, p)
				if pc == 0 {
					return 0, false, false
				}
			}
			// A reversed range such as z-a is empty, not an error.
			if c <= pc && c >= prevCh {
				matched = true
			}
			pc = 0 // so that a following '-' is literal
		case pc == '[' && at(pat, p+1) == ':':
			s := p + 2
			e := s
			for at(pat, e) != 0 && pat[e] != ']' {
				e++
			}
			if at(pat, e) == 0 {
				return 0, false, false
			}
			if e-s-1 < 0 || pat[e-1] != ':' {
				// No ":]": the '[' is an ordinary member and
				// scanning resumes right after it.
				if c == '[' {
					matched = true
				}
				break
			}
			p = e
			inc, known := inClass(pat[s:e-1], c)
			if !known {
				return 0, false, false // unknown [:class:]
			}
			if inc {
				matched = true
			}
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prevCh = pc
		p++
		pc = at(pat, p)
		if pc == ']' {
			return p, matched != negated, true
		}
	}
}

// inClass reports whether c belongs to the named POSIX class, and whether
// the name is known. The classes use git's own ctype (git-compat-util.h),
// which is ASCII-only and locale-independent; notably its isspace is
// " \t\n\r" and does not include '\v' or '\f'.
func inClass(name string, c byte) (in, ok bool) {
	isUpper := 'A' <= c && c <= 'Z'
	isLower := 'a' <= c && c <= 'z'
	isDigit := '0' <= c && c <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return 0x21 <= c && c <= 0x7e, true
	case "lower":
		return isLower, true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return 0x21 <= c && c <= 0x7e && !isUpper && !isLower && !isDigit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}
