package jsonscan

import (
	"slices"
	"testing"
)

// TestMemberLoop checks the one member loop the readers share: keys come
// decoded, values raw, and valid and whole tell a broken object or a line
// with more after it.
func TestMemberLoop(t *testing.T) {
	for _, c := range []struct {
		in           string
		keys, vals   []string
		Valid, Whole bool
	}{
		{in: `{}`, Valid: true, Whole: true},
		{in: ` {"a" : 1, "b":"x"} `, keys: []string{"a", "b"}, vals: []string{`1`, `"x"`}, Valid: true, Whole: true},
		{in: `{"k\u0041":[1,{"c":2}]}`, keys: []string{"kA"}, vals: []string{`[1,{"c":2}]`}, Valid: true, Whole: true},
		{in: `{"a":1} x`, keys: []string{"a"}, vals: []string{`1`}, Valid: true, Whole: false},
		{in: `{"a":1,"b":tru}`, keys: []string{"a"}, vals: []string{`1`}},
		{in: `{"a":1`, keys: []string{"a"}, vals: []string{`1`}},
		{in: `[1]`},
		{in: ``},
	} {
		var keys, vals []string
		m := ObjectMembers([]byte(c.in))
		for k, v := range m.All() {
			keys, vals = append(keys, string(k)), append(vals, string(v))
		}
		if !slices.Equal(keys, c.keys) || !slices.Equal(vals, c.vals) || m.Valid() != c.Valid || m.Whole() != c.Whole {
			t.Errorf("%s: keys %q vals %q valid %v whole %v; want %q %q %v %v", c.in, keys, vals, m.Valid(), m.Whole(), c.keys, c.vals, c.Valid, c.Whole)
		}
		var each []string
		for k := range EachMember([]byte(c.in)) {
			each = append(each, string(k))
		}
		if !slices.Equal(each, c.keys) {
			t.Errorf("%s: eachMember keys %q, want %q", c.in, each, c.keys)
		}
	}
}

func TestMemberLoopStopsEarly(t *testing.T) {
	n := 0
	for range EachMember([]byte(`{"a":1,"b":2,"c":3}`)) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("loop ran %d times after break at 2", n)
	}
	n = 0
	for range EachElement([]byte(`[1,2,3]`)) {
		n++
		break
	}
	if n != 1 {
		t.Fatalf("loop ran %d times after break at 1", n)
	}
}

func TestElementLoop(t *testing.T) {
	for _, c := range []struct {
		in    string
		vals  []string
		array bool
	}{
		{in: `[]`, array: true},
		{in: ` [1, "x" ,{"a":[]}] `, vals: []string{`1`, `"x"`, `{"a":[]}`}, array: true},
		{in: `[1,]`, vals: []string{`1`}},
		{in: `"s"`},
		{in: `{"a":1}`},
		{in: ``},
	} {
		var vals []string
		e := ArrayElements([]byte(c.in))
		for v := range e.All() {
			vals = append(vals, string(v))
		}
		if !slices.Equal(vals, c.vals) || e.IsArray() != c.array {
			t.Errorf("%s: vals %q array %v; want %q %v", c.in, vals, e.IsArray(), c.vals, c.array)
		}
		var each []string
		for v := range EachElement([]byte(c.in)) {
			each = append(each, string(v))
		}
		if !slices.Equal(each, c.vals) {
			t.Errorf("%s: eachElement %q, want %q", c.in, each, c.vals)
		}
	}
}

// TestFieldLastWins: a repeated key keeps its last value, as in
// encoding/json, and a broken object has no fields.
func TestFieldLastWins(t *testing.T) {
	if got := string(Field([]byte(`{"a":1,"\u0061":2}`), "a")); got != "2" {
		t.Errorf(`field = %q, want "2"`, got)
	}
	if got := Field([]byte(`{"a":1,`), "a"); got != nil {
		t.Errorf("field of a broken object = %q, want nil", got)
	}
}
