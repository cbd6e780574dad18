package review

import (
	"slices"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// The context chart draws what was measured (docs/cli.md#report): every
// reading of a session, each holding until the next one (a step, not a
// line between readings, which would claim values nobody read), and a
// compaction as a vertical drop at its instant, down to the first
// reading after it. A session whose last reading precedes a compaction
// with none after it ends at the compaction.

// contextVertex is a corner of a session's context line: a time and a
// fill (0..1). Two vertices at one time are a vertical step.
type contextVertex struct {
	At    time.Time
	Value float64
	// Reading is the reading measured here; nil for a corner the steps
	// make.
	Reading *ReportReading
}

// contextLine is one session's context over time, in pieces: a piece
// ends where nothing was measured after a compaction. The last reading
// holds until the session's last checkpoint in the report.
type contextLine struct {
	Session     string
	Pieces      [][]contextVertex
	Compactions []time.Time
}

// span is when the line starts and ends.
func (l contextLine) span() (start, end time.Time) {
	first, last := l.Pieces[0], l.Pieces[len(l.Pieces)-1]
	return first[0].At, last[len(last)-1].At
}

// contextLines are the report's sessions' lines, in the order of
// Sessions; a session with no reading has none.
func (r *Report) contextLines() []contextLine {
	var out []contextLine
	for _, s := range r.Sessions {
		var rs []ReportReading
		for _, x := range r.Readings {
			if x.Session == s {
				rs = append(rs, x)
			}
		}
		if len(rs) == 0 {
			continue
		}
		var compactions []time.Time
		var end time.Time
		for _, c := range r.Checkpoints {
			if c.Session != s {
				continue
			}
			end = c.CreatedAt
			if c.Trigger == spec.TriggerCompaction {
				compactions = append(compactions, c.CreatedAt)
			}
		}
		pieces := stepLine(rs, compactions)
		if len(pieces) == 0 {
			continue
		}
		// The last reading holds to the session's end, where nothing
		// after it says otherwise.
		last := &pieces[len(pieces)-1]
		if v := (*last)[len(*last)-1]; v.At.Before(end) && !slices.ContainsFunc(compactions, func(c time.Time) bool { return c.After(v.At) }) {
			*last = append(*last, contextVertex{At: end, Value: v.Value})
		}
		out = append(out, contextLine{Session: s, Pieces: pieces, Compactions: compactions})
	}
	return out
}

// stepLine lays readings (oldest first) and compactions out as a step line.
// A reading at a compaction's instant is the context before it (the
// compaction checkpoint records what the context held then).
func stepLine(rs []ReportReading, compactions []time.Time) [][]contextVertex {
	type event struct {
		at      time.Time
		reading *ReportReading
	}
	var events []event
	for i := range rs {
		events = append(events, event{rs[i].At, &rs[i]})
	}
	for _, c := range compactions {
		events = append(events, event{at: c})
	}
	slices.SortStableFunc(events, func(a, b event) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		// At one instant, the readings before the compaction.
		switch {
		case a.reading != nil && b.reading == nil:
			return -1
		case a.reading == nil && b.reading != nil:
			return 1
		}
		return 0
	})
	var pieces [][]contextVertex
	var cur []contextVertex
	flush := func() {
		if len(cur) > 0 {
			pieces = append(pieces, cur)
		}
		cur = nil
	}
	for i, e := range events {
		if e.reading == nil {
			if len(cur) == 0 {
				continue // nothing measured before it
			}
			// The drop: along at the last value to the compaction, then
			// straight down to the first reading after it.
			last := cur[len(cur)-1]
			if !last.At.Equal(e.at) {
				cur = append(cur, contextVertex{At: e.at, Value: last.Value})
			}
			// With another compaction (or nothing) next, the context
			// after this one was never measured: the piece ends.
			if i+1 == len(events) || events[i+1].reading == nil {
				flush()
				continue
			}
			cur = append(cur, contextVertex{At: e.at, Value: events[i+1].reading.Utilization})
			continue
		}
		v := contextVertex{At: e.at, Value: e.reading.Utilization, Reading: e.reading}
		if len(cur) > 0 {
			last := cur[len(cur)-1]
			if !last.At.Equal(e.at) && last.Value != v.Value {
				// Held until now, then the step to the new reading.
				cur = append(cur, contextVertex{At: e.at, Value: last.Value})
			}
		}
		cur = append(cur, v)
	}
	flush()
	return pieces
}

// sampleAt is a piece's fill for the sample ending at t, the last
// sample's end being prev: the highest value the line reached in (prev,
// t], so a reading held for an instant (the context a compaction began
// at) is not lost between samples; else the value held at t. ok is false
// where the piece has no value.
func sampleAt(piece []contextVertex, prev, t time.Time) (float64, bool) {
	if len(piece) == 0 || t.Before(piece[0].At) || prev.After(piece[len(piece)-1].At) {
		return 0, false
	}
	v, ok := 0.0, false
	for _, p := range piece {
		if p.At.After(t) {
			break
		}
		if !p.At.After(prev) {
			v, ok = p.Value, true // held from before the sample
			continue
		}
		if !ok || p.Value > v {
			v = p.Value
		}
		ok = true
	}
	return v, ok
}
