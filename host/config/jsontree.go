package hostconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A user's config file is rewritten from this tree, not from a Go map, so
// that the keys of every object keep the order the user gave them and
// numbers keep their exact text (docs/cli.md#init).

type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// value is one JSON value. Objects keep their members in source order,
// duplicates included (lookups take the last, as encoding/json does).
type value struct {
	kind    kind
	text    string // string contents, number text, "true"/"false"
	members []member
	elems   []*value
	off     int64 // byte offset of the value in its source; -1 when built here
}

type member struct {
	key string
	val *value
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 1000

// syntaxError is a parse or shape error at a byte offset of the source.
type syntaxError struct {
	off int64
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func newObject() *value { return &value{kind: kObject, off: -1} }
func newArray() *value  { return &value{kind: kArray, off: -1} }
func newString(s string) *value {
	return &value{kind: kString, text: s, off: -1}
}
func newInt(n int) *value {
	return &value{kind: kNumber, text: fmt.Sprint(n), off: -1}
}

// get returns the last member named key, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kObject {
		return nil
	}
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// set replaces the last member named key, or appends one.
func (v *value) set(key string, val *value) {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			v.members[i].val = val
			return
		}
	}
	v.members = append(v.members, member{key, val})
}

// del removes the last member named key, the one get returns; an earlier
// duplicate is the user's dead text and stays as it was.
func (v *value) del(key string) {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			v.members = append(v.members[:i], v.members[i+1:]...)
			return
		}
	}
}

// str returns the member's string value and whether it is a string.
func (v *value) str(key string) (string, bool) {
	m := v.get(key)
	if m == nil || m.kind != kString {
		return "", false
	}
	return m.text, true
}

// clone copies v deeply, so a transformation can be compared with its input.
func (v *value) clone() *value {
	if v == nil {
		return nil
	}
	c := &value{kind: v.kind, text: v.text, off: v.off}
	if v.members != nil {
		c.members = make([]member, len(v.members))
		for i, m := range v.members {
			c.members[i] = member{m.key, m.val.clone()}
		}
	}
	if v.elems != nil {
		c.elems = make([]*value, len(v.elems))
		for i, e := range v.elems {
			c.elems[i] = e.clone()
		}
	}
	return c
}

// equal compares two trees, object member order included.
func equal(a, b *value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.kind != b.kind || a.text != b.text {
		return false
	}
	switch a.kind {
	case kObject:
		if len(a.members) != len(b.members) {
			return false
		}
		for i := range a.members {
			if a.members[i].key != b.members[i].key || !equal(a.members[i].val, b.members[i].val) {
				return false
			}
		}
	case kArray:
		if len(a.elems) != len(b.elems) {
			return false
		}
		for i := range a.elems {
			if !equal(a.elems[i], b.elems[i]) {
				return false
			}
		}
	}
	return true
}

// parse reads one JSON document. A document of only white space is an
// empty object: a config file someone created empty means "no settings".
func parse(data []byte) (*value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &value{kind: kObject, off: 0}, nil
	}
	// The scanner behind Unmarshal places a syntax error exactly (the
	// decoder's token stream does not); the tree is built once it passed.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		var js *json.SyntaxError
		if errors.As(err, &js) {
			off := max(js.Offset-1, 0) // the offending byte
			if js.Offset >= int64(len(data)) && strings.HasPrefix(js.Error(), "unexpected end") {
				off = int64(len(data)) // just past the last byte
			}
			return nil, &syntaxError{off, js.Error()}
		}
		return nil, &syntaxError{0, err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &parser{dec: dec, data: data}
	v, err := p.value(0)
	if err != nil {
		return nil, p.wrap(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, &syntaxError{p.start(), "unexpected data after the top-level value"}
		}
		return nil, p.wrap(err)
	}
	return v, nil
}

type parser struct {
	dec  *json.Decoder
	data []byte
}

// start is the offset of the next token: the decoder's offset is the end
// of the previous one, before any white space, colon or comma.
func (p *parser) start() int64 {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (p *parser) wrap(err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return se
	}
	var js *json.SyntaxError
	if errors.As(err, &js) {
		off := js.Offset - 1
		if off < 0 {
			off = 0
		}
		return &syntaxError{off, js.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &syntaxError{int64(len(p.data)), "unexpected end of JSON input"}
	}
	return &syntaxError{p.dec.InputOffset(), err.Error()}
}

func (p *parser) value(depth int) (*value, error) {
	if depth > maxDepth {
		return nil, &syntaxError{p.start(), fmt.Sprintf("nested deeper than %d levels", maxDepth)}
	}
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &value{kind: kObject, off: off, members: []member{}}
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, &syntaxError{off, "object key is not a string"}
				}
				mv, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, member{key, mv})
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		case '[':
			v := &value{kind: kArray, off: off, elems: []*value{}}
			for p.dec.More() {
				ev, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, ev)
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		}
		return nil, &syntaxError{off, fmt.Sprintf("unexpected %q", rune(t))}
	case string:
		return &value{kind: kString, text: t, off: off}, nil
	case json.Number:
		return &value{kind: kNumber, text: string(t), off: off}, nil
	case bool:
		s := "false"
		if t {
			s = "true"
		}
		return &value{kind: kBool, text: s, off: off}, nil
	case nil:
		return &value{kind: kNull, off: off}, nil
	}
	return nil, &syntaxError{off, fmt.Sprintf("unexpected token %v", tok)}
}

// lineCol turns a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	head := data[:off]
	line = 1 + bytes.Count(head, []byte{'\n'})
	col = int(off) - (bytes.LastIndexByte(head, '\n') + 1) + 1
	return line, col
}

// encode writes v with two-space indentation and a final newline, the
// layout of `json.MarshalIndent(v, "", "  ")`, without HTML escaping: a
// hook command's "&&" stays "&&".
func encode(v *value) []byte {
	var b bytes.Buffer
	encodeValue(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func encodeValue(b *bytes.Buffer, v *value, indent int) {
	switch v.kind {
	case kNull:
		b.WriteString("null")
	case kBool, kNumber:
		b.WriteString(v.text)
	case kString:
		writeQuoted(b, v.text)
	case kArray:
		if len(v.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v.elems {
			writeIndent(b, indent+1)
			encodeValue(b, e, indent+1)
			if i < len(v.elems)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		writeIndent(b, indent)
		b.WriteByte(']')
	case kObject:
		if len(v.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range v.members {
			writeIndent(b, indent+1)
			writeQuoted(b, m.key)
			b.WriteString(": ")
			encodeValue(b, m.val, indent+1)
			if i < len(v.members)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		writeIndent(b, indent)
		b.WriteByte('}')
	}
}

func writeIndent(b *bytes.Buffer, n int) {
	for range n {
		b.WriteString("  ")
	}
}

const hexDigits = "0123456789abcdef"

// writeQuoted writes s as a JSON string: quote, backslash and control
// characters escaped, U+2028 and U+2029 too (JavaScript readers choke on
// them), invalid UTF-8 replaced by U+FFFD as encoding/json does.
func writeQuoted(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\f':
				b.WriteString(`\f`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '\u2028':
			b.WriteString(`\u2028`)
		case r == '\u2029':
			b.WriteString(`\u2029`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// quoteJSON returns s as a JSON string literal (also a valid JavaScript
// string literal).
func quoteJSON(s string) string {
	var b bytes.Buffer
	writeQuoted(&b, s)
	return b.String()
}

// describe names a value's kind for error messages.
func describe(v *value) string {
	switch v.kind {
	case kNull:
		return "null"
	case kBool:
		return "a boolean"
	case kNumber:
		return "a number"
	case kString:
		return "a string"
	case kArray:
		return "a list"
	}
	return "an object"
}

// jsonPath joins member names for messages: hooks.SessionStart.
func jsonPath(parts ...string) string { return strings.Join(parts, ".") }
