package taskstate

import (
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#status: a person typing `ctxgit status` at a terminal in a
// workspace with no reading at all never halts the session by that alone,
// and the call is no turn; the same calls from a pipe halt on the second.
func TestStatusInteractiveNeverHaltsWithoutReading(t *testing.T) {
	w := plainWS(t, nil)
	for i := 0; i < 3; i++ {
		st, err := StatusCheckAs(w, "s", Pressure{}, true)
		if err != nil {
			t.Fatal(err)
		}
		if st.Token == workspace.StatusHalt || st.Turn != 0 || !strings.Contains(st.Pressure.Source, "typed at a terminal") {
			t.Fatalf("call %d at a terminal: %+v", i+1, st)
		}
	}
	if st, _ := StatusCheckAs(w, "s", Pressure{}, false); st.Token == workspace.StatusHalt {
		t.Fatalf("first piped call halted: %+v", st)
	}
	if st, _ := StatusCheckAs(w, "s", Pressure{}, false); st.Token != workspace.StatusHalt {
		t.Fatalf("second piped call without any reading did not halt: %+v", st)
	}
}

// A recorded reading is used and says where it came from; a compaction
// forgets it, and the workspace still counts as one with readings.
func TestRecordedReading(t *testing.T) {
	w := plainWS(t, nil)
	if err := RecordReading(w.Root, "s", Pressure{Value: 0.6, Known: true, Source: "host"}, w.Now()); err != nil {
		t.Fatal(err)
	}
	p, ok := RecordedReading(w, "s")
	if !ok || p.Value != 0.6 || p.Source != "hook reading from host, 0s ago" {
		t.Fatalf("reading %+v %v", p, ok)
	}
	// Within a percent and a minute: not rewritten.
	RecordReading(w.Root, "s", Pressure{Value: 0.605, Known: true, Source: "host"}, w.Now())
	if p, _ := RecordedReading(w, "s"); p.Value != 0.6 {
		t.Fatalf("throttled reading rewritten: %+v", p)
	}
	ForgetReading(w.Root, "s")
	if _, ok := RecordedReading(w, "s"); ok || !anyReading(w) {
		t.Fatalf("after ForgetReading: reading %v, any %v", ok, anyReading(w))
	}
}

// SPEC §8, docs/cli.md#checkpoint: a manual checkpoint takes the newest
// hook reading as its usage when it is at most ReadingMaxAge old, not
// when older, from the future, or of a source a checkpoint cannot name.
func TestRecentUsage(t *testing.T) {
	w := plainWS(t, nil)
	now := w.Now()
	for _, tc := range []struct {
		name   string
		at     time.Time
		source string
		ok     bool
	}{
		{"fresh", now, "host", true},
		{"at the limit", now.Add(-ReadingMaxAge), "transcript", true},
		{"past the limit", now.Add(-ReadingMaxAge - time.Second), "host", false},
		{"from the future", now.Add(time.Minute), "host", false},
		{"unknown source", now, "guess", false},
	} {
		ForgetReading(w.Root, "s")
		if err := RecordReading(w.Root, "s", Pressure{Value: 0.86, Known: true, Source: tc.source, Tokens: 172000, Window: 200000}, tc.at); err != nil {
			t.Fatal(err)
		}
		u, ok := RecentUsage(w, "s")
		if ok != tc.ok {
			t.Fatalf("%s: RecentUsage ok = %v, want %v", tc.name, ok, tc.ok)
		}
		want := spec.TokenUsage{InputTokens: 172000, ContextWindow: 200000, Utilization: 0.86, Source: tc.source}
		if ok && u != want {
			t.Fatalf("%s: usage %+v, want %+v", tc.name, u, want)
		}
	}
	if _, ok := RecentUsage(w, "other"); ok {
		t.Fatal("a session without a reading has a usage")
	}
}
