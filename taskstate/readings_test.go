package taskstate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
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

// docs/cli.md#report: every reading RecordReading keeps is in the
// session's history, oldest first, a compaction's forgetting included;
// a throttled one is not; past its bound the history keeps its newer
// half; lines that do not read as a reading, and a history that is a
// link, are left out.
func TestReadingHistory(t *testing.T) {
	w := plainWS(t, nil)
	t0 := w.Now()
	for i, v := range []float64{0.1, 0.4, 0.405, 0.7} {
		RecordReading(w.Root, "s", Pressure{Value: v, Known: true, Source: "host", Tokens: int64(v * 200000), Window: 200000}, t0.Add(time.Duration(i)*time.Second))
	}
	ForgetReading(w.Root, "s")
	RecordReading(w.Root, "s", Pressure{Value: 0.2, Known: true, Source: "transcript"}, t0.Add(10*time.Second))
	var got []string
	for _, h := range ReadingHistory(w, "s") {
		got = append(got, h.At.Sub(t0).String()+" "+strconv.FormatFloat(h.Value, 'f', -1, 64)+" "+h.Source)
	}
	if want := []string{"0s 0.1 host", "1s 0.4 host", "3s 0.7 host", "10s 0.2 transcript"}; !slices.Equal(got, want) {
		t.Errorf("history %q, want %q (the throttled 0.405 left out)", got, want)
	}
	if h := ReadingHistory(w, "other"); h != nil {
		t.Errorf("another session's history: %v", h)
	}

	// Garbage between lines is skipped.
	path := historyPath(w.Root, "s")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n{\"value\":-1,\"at\":\"2026-11-22T10:00:00Z\"}\n{\"value\":0.5}\n")
	f.Close()
	if n := len(ReadingHistory(w, "s")); n != 4 {
		t.Errorf("%d readings after garbage lines, want 4", n)
	}

	// Past the bound, the next reading leaves the newer half.
	var long strings.Builder
	for i := 0; long.Len() < historyMaxBytes; i++ {
		fmt.Fprintf(&long, `{"value":0.%02d,"source":"host","at":%q}`+"\n", i%90, t0.Add(time.Duration(20+i)*time.Second).Format(time.RFC3339))
	}
	if err := os.WriteFile(path, []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	newest := t0.Add(24 * time.Hour)
	RecordReading(w.Root, "s", Pressure{Value: 0.95, Known: true, Source: "host"}, newest)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > historyMaxBytes*6/10 {
		t.Fatalf("history not trimmed: %v bytes, %v", fi.Size(), err)
	}
	h := ReadingHistory(w, "s")
	if len(h) < 1000 || !h[len(h)-1].At.Equal(newest) || h[0].At.Equal(t0.Add(20*time.Second)) {
		t.Errorf("after trimming: %d readings, from %v to %v", len(h), h[0].At, h[len(h)-1].At)
	}

	// A history that is a link is neither read nor written through.
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte(`{"value":0.5,"source":"host","at":"2026-11-22T10:00:00Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	wstest.Symlink(t, target, path)
	if h := ReadingHistory(w, "s"); h != nil {
		t.Errorf("read through a link: %v", h)
	}
	RecordReading(w.Root, "s", Pressure{Value: 0.9, Known: true, Source: "host"}, t0.Add(10000*time.Minute))
	if data, _ := os.ReadFile(target); strings.Count(string(data), "\n") != 1 {
		t.Errorf("written through a link: %q", data)
	}
}
