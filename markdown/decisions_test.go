package markdown

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// SPEC §5.4: every top-level list item is a decision.
func TestParseDecisions(t *testing.T) {
	ts := utc("2026-11-22T10:00:00Z")
	d := func(id string, when time.Time, what, why string, line int) spec.Decision {
		return spec.Decision{ID: id, When: when, What: what, Why: why, Line: line}
	}
	for _, tc := range []struct {
		name string
		src  string
		want []spec.Decision
	}{
		{"SPEC §5.4: what AppendDecision writes", "# Decisions\n\n- 2026-11-22T10:00:00Z — use goldmark — why: it keeps positions\n- 2026-11-22T10:00:00Z — no why\n", []spec.Decision{
			d("d_001", ts, "use goldmark", "it keeps positions", 3),
			d("d_002", ts, "no why", "", 4),
		}},
		{"SPEC §5.4: timestamp wrappers", "- **2026-11-22T10:00:00Z** — a\n- `2026-11-22T10:00:00Z` — b\n- [2026-11-22T10:00:00Z] c\n- __2026-11-22T10:00:00Z__: d\n", []spec.Decision{
			d("d_001", ts, "a", "", 1), d("d_002", ts, "b", "", 2), d("d_003", ts, "c", "", 3), d("d_004", ts, "d", "", 4),
		}},
		{"SPEC §5.4: separators after the timestamp", "- 2026-11-22T10:00:00Z – a\n- 2026-11-22T10:00:00Z - b\n- 2026-11-22T10:00:00Z: c\n- 2026-11-22T10:00:00Z d\n- 2026-11-22T10:00:00Z -- e\n", []spec.Decision{
			d("d_001", ts, "a", "", 1), d("d_002", ts, "b", "", 2), d("d_003", ts, "c", "", 3), d("d_004", ts, "d", "", 4), d("d_005", ts, "e", "", 5),
		}},
		{"SPEC §5.4: timestamp forms", "- 2026-11-22 10:00 — a\n- 2026-11-22 — b\n- 2026-11-22T11:00:00+01:00 — c\n- 2026-11-22T10:00:00.000Z — d\n", []spec.Decision{
			d("d_001", ts, "a", "", 1), d("d_002", utc("2026-11-22T00:00:00Z"), "b", "", 2), d("d_003", ts, "c", "", 3), d("d_004", ts, "d", "", 4),
		}},
		{"SPEC §5.4: no timestamp", "- use goldmark\n- 2026-11-22x is no timestamp\n- **bold** what\n", []spec.Decision{
			d("d_001", time.Time{}, "use goldmark", "", 1), d("d_002", time.Time{}, "2026-11-22x is no timestamp", "", 2), d("d_003", time.Time{}, "**bold** what", "", 3),
		}},
		{"SPEC §5.4: why tails", "- a — why: x\n- b - why: y\n- c — because it is z\n- d – Because: w\n- e — why: v — why: u\n- f-why: not a tail\n", []spec.Decision{
			d("d_001", time.Time{}, "a", "x", 1), d("d_002", time.Time{}, "b", "y", 2), d("d_003", time.Time{}, "c", "it is z", 3),
			d("d_004", time.Time{}, "d", "w", 4), d("d_005", time.Time{}, "e", "v — why: u", 5), d("d_006", time.Time{}, "f-why: not a tail", "", 6),
		}},
		{"SPEC §5.4: why sub-bullets", "- a\n  - detail\n  - why: x\n- b\n  - **Because**: y\n- c — why: tail wins\n  - why: not this\n", []spec.Decision{
			d("d_001", time.Time{}, "a", "x", 1), d("d_002", time.Time{}, "b", "y", 4), d("d_003", time.Time{}, "c", "tail wins", 6),
		}},
		{"SPEC §5.4: continuation lines", "- 2026-11-22T10:00:00Z — use\n  goldmark\nlazily — why: positions\n\n  a later paragraph\n", []spec.Decision{
			d("d_001", ts, "use goldmark lazily", "positions", 1),
		}},
		{"SPEC §5.4: ordered lists and several lists", "1. a\n2. b\n\nText between.\n\n* c\n", []spec.Decision{
			d("d_001", time.Time{}, "a", "", 1), d("d_002", time.Time{}, "b", "", 2), d("d_003", time.Time{}, "c", "", 6),
		}},
		{"SPEC §5.4: headings, text, code and quotes are ignored", "# Decisions\n\nSome text.\n\n```\n- fake\n```\n\n    - indented code\n\n> - quoted\n\n<!--\n- commented\n-->\n- real\n", []spec.Decision{
			d("d_001", time.Time{}, "real", "", 16),
		}},
		{"SPEC §5.4: items read as written", "- # not a heading\n- 1. not nested\n-\n- ---x\n", []spec.Decision{
			d("d_001", time.Time{}, "# not a heading", "", 1), d("d_002", time.Time{}, "1. not nested", "", 2), d("d_003", time.Time{}, "---x", "", 4),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, form := range []struct{ name, src string }{
				{"LF", tc.src},
				{"CRLF", strings.ReplaceAll(tc.src, "\n", "\r\n")},
				{"BOM", "\uFEFF" + tc.src},
			} {
				got, err := ParseDecisions("decisions.md", []byte(form.src))
				if err != nil {
					t.Fatalf("%s: %v", form.name, err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: got\n%+v\nwant\n%+v", form.name, got, tc.want)
				}
			}
		})
	}
}

// SPEC §5.4: AppendDecision writes exactly this.
func TestAppendDecision(t *testing.T) {
	dec := spec.Decision{When: time.Date(2026, 11, 22, 11, 0, 0, 0, time.FixedZone("", 3600)), What: "use\ngoldmark ", Why: " it keeps\r\npositions"}
	const item = "- 2026-11-22T10:00:00Z — use goldmark — why: it keeps positions\n"
	for _, tc := range []struct {
		name string
		src  string
		d    spec.Decision
		want string
	}{
		{"SPEC §5.4: into an empty log", "", dec, "# Decisions\n\n" + item},
		{"SPEC §5.4: into a blank log", "\n \n", dec, "# Decisions\n\n" + item},
		{"SPEC §5.4: after an item", "# Decisions\n\n- old", dec, "# Decisions\n\n- old\n" + item},
		{"SPEC §5.4: CRLF kept", "- old\r\n", dec, "- old\r\n" + strings.TrimSuffix(item, "\n") + "\r\n"},
		{"SPEC §5.4: BOM kept", "\uFEFF", dec, "\uFEFF# Decisions\n\n" + item},
		{"SPEC §5.4: no timestamp", "- old\n", spec.Decision{What: "w"}, "- old\n- w\n"},
		{"SPEC §5.4: no why", "- old\n", spec.Decision{When: dec.When, What: "w"}, "- old\n- 2026-11-22T10:00:00Z — w\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(AppendDecision([]byte(tc.src), tc.d)); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// SPEC §5.4: what AppendDecision writes reads back as the same decision.
func TestAppendDecisionRoundTrip(t *testing.T) {
	when := utc("2026-11-22T10:00:00Z")
	for _, src := range []string{"", "# Decisions\n\n- old\n  - why: old\n", "Text\n", "1. a\n2. b\r\n", "- a\n\n      code\n"} {
		for _, d := range []spec.Decision{
			{When: when, What: "use goldmark", Why: "positions"},
			{When: when, What: "no why"},
			{What: "no time", Why: "because — why: nested"},
			{When: when, What: "# looks like a heading", Why: "[x] - b"},
			{When: when, What: "2026-01-01 starts with a date"},
			{When: when, What: "`code` and **bold**"},
		} {
			out := AppendDecision([]byte(src), d)
			got, err := ParseDecisions("d.md", out)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := ParseDecisions("d.md", []byte(src))
			if len(got) != len(before)+1 {
				t.Fatalf("%q: %d decisions after appending to %d in\n%s", src, len(got), len(before), out)
			}
			last := got[len(got)-1]
			if !last.When.Equal(d.When) || last.What != d.What || last.Why != d.Why {
				t.Errorf("%q + %+v reads back as %+v", src, d, last)
			}
		}
	}
}
