package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzValidLine checks the scanner against encoding/json: the same idea
// of one JSON object in UTF-8, the same members, the same strings.
func FuzzValidLine(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2,{"b":null}]}`, `{"a":"\u00e9\n\ud83d\ude00\ud800x\/"}`, `{"a":1e5}`, `{"a":-0.5E-3}`, `{"a":01}`, `{"a":tru}`, "{\"a\":\"\x01\"}", ` {"a" : 1 } `, `{"a":1,}`, `[1]`, `{"k\u0041":"v"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := ValidLine(b)
		t2 := bytes.TrimSpace(b)
		want := utf8.Valid(b) && len(t2) > 0 && t2[0] == '{' && json.Valid(b)
		if got != want {
			t.Fatalf("validLine(%q) = %v, encoding/json says %v", b, got, want)
		}
		if utf8.Valid(b) {
			// For valid UTF-8, the member loop's verdict is validLine's.
			it := ObjectMembers(b)
			for range it.All() {
			}
			if it.Whole() != got {
				t.Fatalf("members(%q).whole() = %v, validLine says %v", b, it.Whole(), got)
			}
		}
		if !got {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		it := ObjectMembers(b)
		for key, v := range it.All() {
			if m[string(key)] == nil {
				t.Fatalf("key decoded as %q, which encoding/json does not see", key)
			}
			if IsString(v) {
				var want string
				json.Unmarshal(v, &want)
				if got, ok := Str(v); !ok || got != want {
					t.Fatalf("str(%s) = %q, %v; encoding/json says %q", v, got, ok, want)
				}
			}
		}
		if !it.Whole() {
			t.Fatal("members of a valid object failed")
		}
	})
}
