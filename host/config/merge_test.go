package hostconfig

import (
	"encoding/json"
	"strings"
	"testing"
)

var allJSONHosts = []*jsonHost{claudeHost, codexHost, geminiHost, cursorHost}

// normalize drops what an install followed by an uninstall cannot tell apart
// from nothing (docs/cli.md#init): an empty list under one of ctxgit's events
// (ctxgit's entry went into it, and uninstall removes a list it emptied), an
// empty "hooks" object left by that, and Cursor's "version": 1, which install
// adds.
func normalize(h *jsonHost, doc *value) *value {
	doc = doc.clone()
	if doc.kind != kObject {
		return doc
	}
	ours := map[string]bool{}
	for _, s := range h.hooks {
		ours[s.hostEvent] = true
	}
	top := []member{}
	for _, hm := range doc.members {
		if hm.key == "hooks" && hm.val.kind == kObject {
			kept := []member{}
			for _, m := range hm.val.members {
				if !(ours[m.key] && m.val.kind == kArray && len(m.val.elems) == 0) {
					kept = append(kept, m)
				}
			}
			if len(kept) == 0 {
				continue
			}
			hm.val.members = kept
		}
		top = append(top, hm)
	}
	doc.members = top
	if h.version {
		if v := doc.get("version"); v != nil && v.kind == kNumber && v.text == "1" {
			doc.del("version")
		}
	}
	return doc
}

// FuzzMergeJSON: for any input, installing then uninstalling gives back the
// input's document (docs/cli.md#init), or a clean error; never a panic. Along
// the way: the encoder's output parses back to the same tree, and a second
// install changes nothing.
func FuzzMergeJSON(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`[]`,
		`null`,
		`{"hooks": {}}`,
		`{"hooks": []}`,
		`{"hooks": {"SessionStart": []}}`,
		`{"hooks": {"SessionStart": 3}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ctxgit hook claude-code stop"}, {"command": "x"}]}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a && b"}]}], "X": [1, "two", null]}}`,
		`{"statusLine": {"type": "command", "command": "mine"}, "a": 1e400, "b": -0.0}`,
		`{"statusLine": "str"}`,
		`{"version": 2, "hooks": {"preToolUse": [{"command": "/usr/bin/ctxgit hook cursor pre-tool-use"}]}}`,
		`{"a": 1, "a": 2, "hooks": {"Stop": []}, "hooks": {"Stop": []}}`,
		`{"k": "\u2028\u0000\ud800 é <&>"}`,
		"{\n  \"a\": tru\n}",
		`{"hooks": {"SessionStart": [{"hooks": {}}, {"hooks": [3]}, 7]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parse(data)
		if err != nil {
			if _, ok := err.(*syntaxError); !ok {
				t.Fatalf("parse error %T %v", err, err)
			}
			if json.Valid(data) && !strings.HasPrefix(err.Error(), "nested deeper") {
				t.Fatalf("valid JSON refused: %v", err)
			}
			return
		}
		again, err := parse(encode(doc))
		if err != nil || !equal(again, doc) {
			t.Fatalf("encode does not round-trip: %v\n%s", err, encode(doc))
		}
		for _, h := range allJSONHosts {
			for _, command := range []string{"ctxgit", `"/opt/my tools/ctxgit"`} {
				installed := doc.clone()
				if _, err := h.apply(installed, command, "f.json", false); err != nil {
					if _, ok := err.(*syntaxError); !ok {
						t.Fatalf("apply error %T %v", err, err)
					}
					continue
				}
				twice := installed.clone()
				if _, err := h.apply(twice, command, "f.json", false); err != nil || !equal(twice, installed) {
					t.Fatalf("%s: second install changed\n%s\nto\n%s", h.host, encode(installed), encode(twice))
				}
				if len(h.owned(command, installed)) == 0 {
					t.Fatalf("%s: nothing installed in\n%s", h.host, encode(installed))
				}
				removed := installed.clone()
				if _, err := h.apply(removed, command, "f.json", true); err != nil {
					t.Fatalf("%s: uninstall after install: %v", h.host, err)
				}
				// Entries of ctxgit's already in the input leave with the
				// uninstall too: compare with uninstalling the input.
				want := doc.clone()
				if len(h.owned(command, doc)) > 0 {
					if _, err := h.apply(want, command, "f.json", true); err != nil {
						t.Fatalf("%s: uninstall: %v", h.host, err)
					}
				}
				if !equal(normalize(h, removed), normalize(h, want)) {
					t.Fatalf("%s: install+uninstall of\n%s\ngave\n%s", h.host, encode(want), encode(removed))
				}
				if len(h.owned(command, removed)) != 0 {
					t.Fatalf("%s: uninstall left ctxgit entries:\n%s", h.host, encode(removed))
				}
			}
		}
	})
}
