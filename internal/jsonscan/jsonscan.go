// Package jsonscan is a small validating JSON scanner. Transcripts are
// large and read on every hook call, and most of their bytes are fields
// ctxgit never looks at (tool output echoed twice, hook progress).
// Unmarshalling every line into structs costs several times more than
// walking it once, so lines are validated and split into raw member
// values here, and only the few values that matter are decoded. It uses
// the standard library only: host/transcript and the small tool-call hook
// (internal/hookpath, cmd/ctxgit-hook) both read with it.
//
// Every function is total: on any input it returns, without panicking and
// without recursion (a line of a million '[' must not blow the stack).
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting, as encoding/json does, so a hostile line cannot
// make the container stack grow without limit.
const maxDepth = 10000

// strPlain marks the bytes that may appear in a JSON string unescaped and
// need no attention: everything but the quote, the backslash and control
// characters. UTF-8 validity is checked once per line, not here.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] (a
// quote), or -1 when it is not a valid JSON string.
func skipString(b []byte, i int) int {
	i++
	for {
		// Eight bytes at a time while none of them needs attention: most
		// of a transcript's bytes are long strings of tool output.
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ 0x2222222222222222 // zero bytes where x has '"'
			e := x ^ 0x5c5c5c5c5c5c5c5c // zero bytes where x has '\\'
			m := (x-0x2020202020202020)&^x | (q-0x0101010101010101)&^q | (e-0x0101010101010101)&^e
			if m&0x8080808080808080 != 0 {
				break
			}
			i += 8
		}
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber returns the index past the number at b[i], or -1.
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipValue validates the value starting at b[i] (leading whitespace
// allowed) and returns the index just past it, or -1 when it is not valid
// JSON. It is iterative: containers are tracked on a small explicit stack.
func skipValue(b []byte, i int) int {
	var stackArr [32]byte
	stack := stackArr[:0]
	for {
		// A value is expected at i.
		i = skipWS(b, i)
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; c {
		case '{', '[':
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			j := skipWS(b, i+1)
			if j < len(b) && b[j] == closer {
				i = j + 1
				break
			}
			if len(stack) >= maxDepth {
				return -1
			}
			stack = append(stack, c)
			i = j
			if c == '{' {
				if i = skipKey(b, i); i < 0 {
					return -1
				}
			}
			continue
		case '"':
			i = skipString(b, i)
		case 't':
			i = skipLiteral(b, i, "true")
		case 'f':
			i = skipLiteral(b, i, "false")
		case 'n':
			i = skipLiteral(b, i, "null")
		default:
			i = skipNumber(b, i)
		}
		if i < 0 {
			return -1
		}
		// A value ended at i: close containers or move to the next member.
		for {
			if len(stack) == 0 {
				return i
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i++
				if top == '{' {
					if i = skipKey(b, i); i < 0 {
						return -1
					}
				}
				break
			}
			if top == '{' && b[i] == '}' || top == '[' && b[i] == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return -1
		}
	}
}

// skipKey skips `"key" :` and returns the index after the colon, or -1.
func skipKey(b []byte, i int) int {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i); i < 0 {
		return -1
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// ValidLine reports whether line is one JSON object in valid UTF-8: the
// only shape a transcript line may have.
func ValidLine(line []byte) bool {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' || !utf8.Valid(line) {
		return false
	}
	end := skipValue(line, i)
	return end >= 0 && skipWS(line, end) == len(line)
}

// Members walks the members of the object b (which must start, after
// whitespace, with '{'), validating as it goes. It is the one loop every
// reader uses to pick the members it needs: range over all, switch on the
// key, then ask valid or whole when the object's validity matters. The
// Members seen before an error are not to be trusted.
type Members struct {
	b     []byte
	i     int
	begun bool
	done  bool
	err   bool
}

func ObjectMembers(b []byte) Members { return Members{b: b} }

// All yields each member's key, decoded (escapes resolved, no quotes), and
// its raw value. A key without escapes is a slice of b, so a switch on
// string(key) costs no allocation.
func (m *Members) All() iter.Seq2[[]byte, []byte] {
	return func(yield func(key, val []byte) bool) {
		for {
			key, val, ok := m.Next()
			if !ok || !yield(keyText(key), val) {
				return
			}
		}
	}
}

// EachMember is all for a caller that takes what it can from the object
// and does not need to know whether the rest of it was valid.
func EachMember(b []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(key, val []byte) bool) {
		m := ObjectMembers(b)
		for {
			key, val, ok := m.Next()
			if !ok || !yield(keyText(key), val) {
				return
			}
		}
	}
}

// Valid reports, once all has run to its end, whether the object was valid.
func (m *Members) Valid() bool { return m.done && !m.err }

// Whole reports, once all has run to its end, whether b was one valid
// object with nothing but whitespace after it: what a transcript line
// must be.
func (m *Members) Whole() bool { return m.Valid() && skipWS(m.b, m.i) == len(m.b) }

// Next returns the raw key (with quotes) and raw value of the next member.
func (m *Members) Next() (key, val []byte, ok bool) {
	if m.done {
		return nil, nil, false
	}
	b, i := m.b, skipWS(m.b, m.i)
	if !m.begun {
		m.begun = true
		if i >= len(b) || b[i] != '{' {
			return m.fail()
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			m.i, m.done = i+1, true
			return nil, nil, false
		}
	} else {
		if i < len(b) && b[i] == '}' {
			m.i, m.done = i+1, true
			return nil, nil, false
		}
		if i >= len(b) || b[i] != ',' {
			return m.fail()
		}
		i = skipWS(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return m.fail()
	}
	ks := i
	if i = skipString(b, i); i < 0 {
		return m.fail()
	}
	key = b[ks:i]
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return m.fail()
	}
	vs := skipWS(b, i+1)
	ve := skipValue(b, vs)
	if ve < 0 {
		return m.fail()
	}
	m.i = ve
	return key, b[vs:ve], true
}

func (m *Members) fail() ([]byte, []byte, bool) {
	m.done, m.err = true, true
	return nil, nil, false
}

// End is the index just past the object, valid once all has run to its
// End without an error; during the loop, the index just past the current
// member's value.
func (m *Members) End() int { return m.i }

// Elements walks the values of the array b, as members walks an object.
type Elements struct {
	b     []byte
	i     int
	begun bool
	done  bool
	err   bool
}

func ArrayElements(b []byte) Elements { return Elements{b: b} }

// All yields each raw value of the array.
func (e *Elements) All() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for {
			v, ok := e.Next()
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// EachElement is all for a caller that takes what it can from the array.
// A value that is not an array yields nothing.
func EachElement(b []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		e := ArrayElements(b)
		for {
			v, ok := e.Next()
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// IsArray reports, once all has run to its end, whether the value was a
// Valid array.
func (e *Elements) IsArray() bool { return e.done && !e.err }

// Failed reports whether the elements met so far were not a valid array,
// whether or not the loop ran to its end.
func (e *Elements) Failed() bool { return e.err }

func (e *Elements) Next() ([]byte, bool) {
	if e.done {
		return nil, false
	}
	b, i := e.b, skipWS(e.b, e.i)
	if !e.begun {
		e.begun = true
		if i >= len(b) || b[i] != '[' {
			e.done, e.err = true, true
			return nil, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			e.i, e.done = i+1, true
			return nil, false
		}
	} else {
		if i < len(b) && b[i] == ']' {
			e.i, e.done = i+1, true
			return nil, false
		}
		if i >= len(b) || b[i] != ',' {
			e.done, e.err = true, true
			return nil, false
		}
		i = skipWS(b, i+1)
	}
	ve := skipValue(b, i)
	if ve < 0 {
		e.done, e.err = true, true
		return nil, false
	}
	e.i = ve
	return b[i:ve], true
}

// keyText is a raw member key without its quotes, unescaped in the rare
// case it holds escapes. members.all yields keys
// through it, so callers switch on string(key) without allocating.
func keyText(raw []byte) []byte {
	if len(raw) < 2 {
		return nil
	}
	k := raw[1 : len(raw)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		return []byte(StrOr(raw))
	}
	return k
}

// KeyIs reports whether the raw key (with quotes) names k. It also serves
// to compare a raw string value with a constant: keyIs(typ, "user").
func KeyIs(raw []byte, k string) bool {
	if len(raw) == len(k)+2 && string(raw[1:len(raw)-1]) == k {
		return true
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	s, ok := Str(raw)
	return ok && s == k
}

// Field returns the raw value of the member k of object b, or nil.
func Field(b []byte, k string) []byte {
	m := ObjectMembers(b)
	var found []byte
	for key, val := range m.All() {
		if string(key) == k {
			found = val // the last one wins, as in encoding/json
		}
	}
	if !m.Valid() {
		return nil
	}
	return found
}

// Path follows nested object members: path(b, "message", "usage").
func Path(b []byte, keys ...string) []byte {
	for _, k := range keys {
		if b = Field(b, k); b == nil {
			return nil
		}
	}
	return b
}

// Str decodes a raw JSON string; ok is false for any other value.
func Str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	return unquote(inner)
}

// unquote decodes the escapes of a string's inside, which need not have
// been validated: a malformed escape makes ok false.
func unquote(in []byte) (string, bool) {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(in) {
			return "", false
		}
		switch in[i+1] {
		case '"', '\\', '/':
			out = append(out, in[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(in[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A pair makes one character; a lone half is U+FFFD, as
				// encoding/json decodes it.
				if i+1 < len(in) && in[i] == '\\' && in[i+1] == 'u' {
					if r2, ok := hex4(in[i+2:]); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// StrOr decodes a raw string, or returns "" for anything else.
func StrOr(raw []byte) string {
	s, _ := Str(raw)
	return s
}

// IsString reports whether raw is a JSON string.
func IsString(raw []byte) bool { return len(raw) > 0 && raw[0] == '"' }

// IsTrue reports whether raw is the literal true.
func IsTrue(raw []byte) bool { return string(raw) == "true" }

// Num reads a raw number (or a string holding one, since some hosts quote
// counters) as an int64, truncating fractions and clamping overflow.
func Num(raw []byte) (int64, bool) {
	if IsString(raw) {
		s, ok := Str(raw)
		if !ok {
			return 0, false
		}
		raw = []byte(s)
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64, true
	case f <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}
