package markdown

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// exampleFailureLog mixes what agents write by hand with what
// AppendFailure writes.
const exampleFailureLog = `# Failure log

---

## 2026-11-22T10:04:05Z · Logic/Approach → Pivot

**Summary**: regex parser too slow on big plans

Profiled it: 4 s on 10 MB.

**Lesson**: measure before choosing

---
**Type**: transient
**Action**: Retry
- **When**: 2026-11-22 11:00

The network dropped.
It came back.
Then dropped again.
And again.
`

// SPEC §5.1: entries; SPEC §5.2: type, action and time; SPEC §5.3: summary
// and fields.
func TestParseFailureLog(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []spec.FailureEntry
	}{
		{"SPEC §5.1: the example", exampleFailureLog, []spec.FailureEntry{
			// "# Failure log" is the title, not an entry (SPEC §5.1).
			{When: utc("2026-11-22T10:04:05Z"), Type: spec.FailLogic, Action: spec.ActionPivot,
				Summary: "regex parser too slow on big plans", Lesson: "measure before choosing",
				Body: "## 2026-11-22T10:04:05Z · Logic/Approach → Pivot\n\n**Summary**: regex parser too slow on big plans\n\nProfiled it: 4 s on 10 MB.\n\n**Lesson**: measure before choosing",
				Line: 5},
			{When: utc("2026-11-22T11:00:00Z"), Type: spec.FailTransient, Action: spec.ActionRetry,
				Summary: "The network dropped.\nIt came back.\nThen dropped again.",
				Body:    "**Type**: transient\n**Action**: Retry\n- **When**: 2026-11-22 11:00\n\nThe network dropped.\nIt came back.\nThen dropped again.\nAnd again.",
				Line:    14},
		}},
		{"SPEC §5.1: empty entries are dropped", "---\n\n---\n  \n---\nA\n---\n", []spec.FailureEntry{
			{Summary: "A", Body: "A", Line: 6},
		}},
		{"SPEC §5.1: separators are exactly ---", "A\n --- \n----\n- - -\nB\n---   \nC\n", []spec.FailureEntry{
			{Summary: "A\n---\n----", Body: "A\n --- \n----\n- - -\nB", Line: 1},
			{Summary: "C", Body: "C", Line: 7},
		}},
		{"SPEC §5.1: a --- under text splits, though goldmark would read a heading", "A\n---\nB\n", []spec.FailureEntry{
			{Summary: "A", Body: "A", Line: 1},
			{Summary: "B", Body: "B", Line: 3},
		}},
		{"SPEC §5.1: --- in fenced code is no separator", "A\n```\n---\n```\n~~~~\n---\n~~~\n---\n~~~~\n---\nB\n", []spec.FailureEntry{
			{Summary: "A", Body: "A\n```\n---\n```\n~~~~\n---\n~~~\n---\n~~~~", Line: 1},
			{Summary: "B", Body: "B", Line: 11},
		}},
		{"SPEC §5.2: field forms", "type: capability\n- ACTION: escalate\n* **Lesson:** ask first\n__Summary__: s\n", []spec.FailureEntry{
			{Type: spec.FailCapabilityGap, Action: spec.ActionEscalate, Summary: "s", Lesson: "ask first",
				Body: "type: capability\n- ACTION: escalate\n* **Lesson:** ask first\n__Summary__: s", Line: 1},
		}},
		{"SPEC §5.2: unknown type and action are left out", "**Type**: weird\n**Action**: shrug\nText\n", []spec.FailureEntry{
			{Summary: "Text", Body: "**Type**: weird\n**Action**: shrug\nText", Line: 1},
		}},
		{"SPEC §5.2: action as the first word", "Action: pivot to step 3b\n", []spec.FailureEntry{
			{Action: spec.ActionPivot, Body: "Action: pivot to step 3b", Line: 1},
		}},
		{"SPEC §5.2: the first heading or field wins", "## 2026-01-01 Transient\nType: Input/Data\nDate: 2025-01-01\n", []spec.FailureEntry{
			{When: utc("2026-01-01T00:00:00Z"), Type: spec.FailTransient, Summary: "2026-01-01 Transient",
				Body: "## 2026-01-01 Transient\nType: Input/Data\nDate: 2025-01-01", Line: 1},
		}},
		{"SPEC §5.2: heading without a timestamp", "### Failure · Input/Data → Abort ###\n", []spec.FailureEntry{
			{Type: spec.FailInputData, Action: spec.ActionAbort, Summary: "Failure · Input/Data → Abort",
				Body: "### Failure · Input/Data → Abort ###", Line: 1},
		}},
		{"SPEC §5.2: a heading names a type or action only as a whole part", "## Retry logic broke · Transient-ish\n", []spec.FailureEntry{
			{Summary: "Retry logic broke · Transient-ish", Body: "## Retry logic broke · Transient-ish", Line: 1},
		}},
		{"SPEC §5.2: fields in code are ignored", "```\nType: Transient\n## 2026-01-01\n```\nText\n", []spec.FailureEntry{
			{Summary: "Text", Body: "```\nType: Transient\n## 2026-01-01\n```\nText", Line: 1},
		}},
		{"SPEC §5.3: an empty Summary field takes the lines under it", "**Summary**:\nfirst\nsecond\n\nlater\n", []spec.FailureEntry{
			{Summary: "first\nsecond", Body: "**Summary**:\nfirst\nsecond\n\nlater", Line: 1},
		}},
		{"SPEC §5.3: an empty Summary field over a blank line is empty", "## 2026-01-01\n\n**Summary**:\n\nbody\n", []spec.FailureEntry{
			{When: utc("2026-01-01T00:00:00Z"), Body: "## 2026-01-01\n\n**Summary**:\n\nbody", Line: 1},
		}},
		{"SPEC §5.3: the first paragraph skips fields and headings", "# Title\nType: Transient\n\n  first  \nsecond\nType: Logic\nthird\n", []spec.FailureEntry{
			{Type: spec.FailTransient, Summary: "first\nsecond", Body: "# Title\nType: Transient\n\n  first  \nsecond\nType: Logic\nthird", Line: 1},
		}},
		{"SPEC §5.3: the heading when there is no text", "## Disk full ##\n**Type**: Environmental\n", []spec.FailureEntry{
			{Type: spec.FailEnvironmental, Summary: "Disk full", Body: "## Disk full ##\n**Type**: Environmental", Line: 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, form := range []struct{ name, src string }{
				{"LF", tc.src},
				{"CRLF", strings.ReplaceAll(tc.src, "\n", "\r\n")},
				{"BOM", "\uFEFF" + tc.src},
			} {
				got, err := ParseFailureLog("failure-log.md", []byte(form.src))
				if err != nil {
					t.Fatalf("%s: %v", form.name, err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: got\n%#v\nwant\n%#v", form.name, got, tc.want)
				}
			}
		})
	}
}

// SPEC §5.2: the timestamp forms, all normalised to UTC.
func TestFailureTimestamps(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // RFC 3339; "" for none
	}{
		{"2026-11-22T10:04:05Z", "2026-11-22T10:04:05Z"},
		{"2026-11-22T10:04:05.25Z", "2026-11-22T10:04:05.25Z"},
		{"2026-11-22T10:04:05+02:00", "2026-11-22T08:04:05Z"},
		{"2026-11-22T10:04:05.123456789-01:30", "2026-11-22T11:34:05.123456789Z"},
		{"2026-11-22T10:04:05+0200", "2026-11-22T08:04:05Z"},
		{"2026-11-22T10:04:05", "2026-11-22T10:04:05Z"},
		{"2026-11-22 10:04", "2026-11-22T10:04:00Z"},
		{"2026-11-22 10:04:05Z", "2026-11-22T10:04:05Z"},
		{"2026-11-22T10:04Z", "2026-11-22T10:04:00Z"},
		{"2026-11-22", "2026-11-22T00:00:00Z"},
		{"on 2026-11-22, late", "2026-11-22T00:00:00Z"},
		{"2026-02-30", ""},
		{"2026-13-01", ""},
		{"2026-11-22 10:04 and 2026-11-23", "2026-11-22T10:04:00Z"},
		{"2026-11-22 25:00 and 2026-11-23", "2026-11-23T00:00:00Z"},
		{"12026-11-22", ""},
		{"yesterday", ""},
	} {
		got, err := ParseFailureLog("f.md", []byte("When: "+tc.in+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		want := time.Time{}
		if tc.want != "" {
			want = utc(tc.want)
		}
		if len(got) != 1 || !got[0].When.Equal(want) || got[0].When.Location() != time.UTC {
			t.Errorf("When: %s → %+v, want %s", tc.in, got, tc.want)
		}
	}
}

// SPEC §5.2: AppendFailure writes exactly this.
func TestAppendFailure(t *testing.T) {
	e := spec.FailureEntry{
		When:    time.Date(2026, 11, 22, 11, 4, 5, 0, time.FixedZone("", 3600)),
		Type:    spec.FailLogic,
		Action:  spec.ActionPivot,
		Summary: "regex parser\ntoo slow",
		Body:    "\nProfiled it.\n\n",
		Lesson:  "measure\nfirst",
	}
	const entry = "## 2026-11-22T10:04:05Z · Logic/Approach → Pivot\n\n**Summary**: regex parser too slow\n\nProfiled it.\n\n**Lesson**: measure first\n"
	for _, tc := range []struct {
		name string
		src  string
		e    spec.FailureEntry
		want string
	}{
		{"SPEC §5.2: into an empty log", "", e, entry},
		{"SPEC §5.2: into a blank log", " \n\n", e, entry},
		{"SPEC §5.2: after an entry", "## Old\n\nold", e, "## Old\n\nold\n\n---\n\n" + entry},
		{"SPEC §5.2: after a separator", "old\n---\n\n", e, "old\n---\n\n\n" + entry},
		{"SPEC §5.2: CRLF kept", "old\r\n", e, "old\r\n\r\n---\r\n\r\n" + strings.ReplaceAll(entry, "\n", "\r\n")},
		{"SPEC §5.2: BOM kept", "\uFEFF", e, "\uFEFF" + entry},
		{"SPEC §5.2: an unclosed fence in the log is closed", "old\n````go\ncode\n", e, "old\n````go\ncode\n````\n\n---\n\n" + entry},
		{"SPEC §5.2: minimal entry", "", spec.FailureEntry{}, "## Failure\n\n**Summary**:\n"},
		{"SPEC §5.2: no timestamp", "", spec.FailureEntry{Type: spec.FailTransient, Summary: "s"}, "## Failure · Transient\n\n**Summary**: s\n"},
		{"SPEC §5.2: action only", "", spec.FailureEntry{When: e.When, Action: spec.ActionAbort}, "## 2026-11-22T10:04:05Z → Abort\n\n**Summary**:\n"},
		{"SPEC §5.2: body equal to the summary is left out", "", spec.FailureEntry{Summary: "same", Body: " same\n"}, "## Failure\n\n**Summary**: same\n"},
		{"SPEC §5.2: a body cannot end the entry", "", spec.FailureEntry{Summary: "s", Body: "a\n---\nb\n```\n---"},
			"## Failure\n\n**Summary**: s\n\na\n ---\nb\n```\n---\n```\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(AppendFailure([]byte(tc.src), tc.e))
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// SPEC §5.2: what AppendFailure writes reads back as the same entry.
func TestAppendFailureRoundTrip(t *testing.T) {
	when := utc("2026-11-22T10:04:05Z")
	for _, src := range []string{"", "# Failure log\n", exampleFailureLog, "old\r\nentry\r\n", "x\n```\nopen fence\n"} {
		for _, e := range []spec.FailureEntry{
			{When: when, Type: spec.FailLogic, Action: spec.ActionPivot, Summary: "s", Lesson: "l", Body: "b"},
			{When: when, Type: spec.FailGoal, Action: spec.ActionAbort, Summary: "multi word summary", Body: "## 2025-01-01 · Transient → Retry\n\nType: Input/Data\n"},
			{Type: spec.FailImpossibility, Action: spec.ActionEscalate, Summary: "no time"},
			{When: when, Action: spec.ActionRetry},
			{When: when, Summary: "# not a heading", Body: "---\n~~~\n---"},
			{Summary: "", Body: "the body only"},
		} {
			out := AppendFailure([]byte(src), e)
			entries, err := ParseFailureLog("f.md", out)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) == 0 {
				t.Fatalf("%q: no entries in\n%s", src, out)
			}
			got := entries[len(entries)-1]
			if !got.When.Equal(e.When) || got.Type != e.Type || got.Action != e.Action || got.Summary != e.Summary || got.Lesson != e.Lesson {
				t.Errorf("%q + %+v reads back as %+v from\n%s", src, e, got, out)
			}
			before, _ := ParseFailureLog("f.md", []byte(src))
			if len(entries) != len(before)+1 {
				t.Errorf("%q: %d entries after appending to %d", src, len(entries), len(before))
			}
		}
	}
}

// SPEC §5.1: a log that is only its title holds no failure, and the first
// entry appended to it needs no separator.
func TestFailureLogTitle(t *testing.T) {
	for _, tc := range []struct {
		src     string
		entries int
	}{
		{"# Failure log\n", 0},
		{"# Failure log\n\nsomething went wrong\n", 1},
		{"## Retry logic broke\n", 1},
		{"# 2026-11-22T10:00:00Z disk full\n", 1},
	} {
		got, err := ParseFailureLog("f.md", []byte(tc.src))
		if err != nil || len(got) != tc.entries {
			t.Errorf("%q: %d entries (%v), want %d", tc.src, len(got), err, tc.entries)
		}
	}
	out := AppendFailure([]byte("# Failure log\n\n"), spec.FailureEntry{Summary: "first", Type: spec.FailTransient})
	want := "# Failure log\n\n## Failure · Transient\n\n**Summary**: first\n"
	if string(out) != want {
		t.Fatalf("append to a title-only log:\n%q\nwant\n%q", out, want)
	}
	got, _ := ParseFailureLog("f.md", out)
	if len(got) != 1 || got[0].Summary != "first" {
		t.Fatalf("parsed back %+v", got)
	}
}

// SPEC §5.6: resolving adds a Resolved paragraph at the end of the entry
// and keeps every other byte; the entry then reads as resolved.
func TestResolveFailures(t *testing.T) {
	const how = "2026-11-22T10:05:00Z — step 2 marked done"
	for _, tc := range []struct {
		name, src string
		which     []int
		want      string
	}{
		{"the middle entry", "# Failure log\n\n## A\n\n**Step**: 2\n\n---\n\nB\n",
			[]int{0}, "# Failure log\n\n## A\n\n**Step**: 2\n\n**Resolved**: " + how + "\n\n---\n\nB\n"},
		{"the last entry without a final newline", "A\n---\nB", []int{1}, "A\n---\nB\n\n**Resolved**: " + how + "\n"},
		{"two at once", "A\n\n---\nB\n", []int{0, 1}, "A\n\n**Resolved**: " + how + "\n\n---\nB\n\n**Resolved**: " + how + "\n"},
		{"CRLF and a BOM kept", "\uFEFFA\r\n---\r\nB\r\n", []int{0}, "\uFEFFA\r\n\r\n**Resolved**: " + how + "\r\n---\r\nB\r\n"},
		{"an open fence is closed first", "A\n---\nB\n```\ncode\n", []int{1}, "B\n```\ncode\n```\n\n**Resolved**: " + how + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveFailures("failure-log.md", []byte(tc.src), tc.which, how)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(string(got), tc.want) || tc.name != "an open fence is closed first" && string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			es, err := ParseFailureLog("failure-log.md", got)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range tc.which {
				if !es[i].IsResolved() || es[i].Resolved != how || !es[i].ResolvedAt.Equal(utc("2026-11-22T10:05:00Z")) {
					t.Errorf("entry %d: %+v, want resolved %q", i, es[i], how)
				}
			}
		})
	}
	if _, err := ResolveFailures("failure-log.md", []byte("A\n"), []int{1}, how); err == nil {
		t.Error("an entry the log does not have: no error")
	}
}

// SPEC §5.3: Step is the first word of its field; an empty Resolved
// field resolves nothing.
func TestFailureStepAndResolved(t *testing.T) {
	es, err := ParseFailureLog("f.md", []byte("## x\n\n**Step**: 3b. the stream\n\n**Resolved**:\n\n---\n\nStep: 4\nResolved: yes, by hand\n"))
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Step != "3b" || es[0].IsResolved() || es[1].Step != "4" || es[1].Resolved != "yes, by hand" || !es[1].ResolvedAt.IsZero() {
		t.Errorf("entries %+v", es)
	}
	// What AppendFailure writes for a step reads back.
	out := AppendFailure(nil, spec.FailureEntry{Summary: "s", Step: "2"})
	if es, _ := ParseFailureLog("f.md", out); len(es) != 1 || es[0].Step != "2" || es[0].Summary != "s" {
		t.Errorf("%q read back as %+v", out, es)
	}
}
