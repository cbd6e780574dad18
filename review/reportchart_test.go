package review

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#report: the context line is what was measured: each
// reading held until the next, a compaction a vertical drop at its
// instant to the first reading after it, the line ending where nothing
// was read after a compaction.
func TestStepLine(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	reading := func(min int, v float64) ReportReading { return ReportReading{At: at(min), Utilization: v} }
	show := func(pieces [][]contextVertex) string {
		var out []string
		for _, p := range pieces {
			var vs []string
			for _, v := range p {
				mark := ""
				if v.Reading != nil {
					mark = "*"
				}
				vs = append(vs, fmt.Sprintf("%d:%.0f%s", int(v.At.Sub(t0).Minutes()), v.Value*100, mark))
			}
			out = append(out, strings.Join(vs, " "))
		}
		return strings.Join(out, " | ")
	}
	for _, tc := range []struct {
		name        string
		readings    []ReportReading
		compactions []int
		want        string
	}{
		{"steps, not slopes", []ReportReading{reading(0, 0.08), reading(10, 0.41), reading(21, 0.72)}, nil,
			"0:8* 10:8 10:41* 21:41 21:72*"},
		{"an equal reading adds no step", []ReportReading{reading(0, 0.3), reading(5, 0.3)}, nil, "0:30* 5:30*"},
		{"a compaction drops at its instant", []ReportReading{reading(0, 0.5), reading(26, 0.83), reading(38, 0.26)}, []int{29},
			"0:50* 26:50 26:83* 29:83 29:26 38:26*"},
		{"the compaction's own reading is the context before it", []ReportReading{reading(20, 0.6), reading(29, 0.85), reading(33, 0.18)}, []int{29},
			"20:60* 29:60 29:85* 29:18 33:18*"},
		{"nothing read after a compaction ends the line", []ReportReading{reading(0, 0.5), reading(10, 0.7)}, []int{15},
			"0:50* 10:50 10:70* 15:70"},
		{"two compactions in a row: the second starts nothing", []ReportReading{reading(0, 0.5), reading(20, 0.2)}, []int{5, 10},
			"0:50* 5:50 | 20:20*"},
		{"a compaction before any reading draws nothing", []ReportReading{reading(5, 0.2)}, []int{0}, "5:20*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs []time.Time
			for _, m := range tc.compactions {
				cs = append(cs, at(m))
			}
			if got := show(stepLine(tc.readings, cs)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// The Mermaid samples keep the peak a compaction began at, and the last
// reading holds to the session's last checkpoint.
func TestContextLinesAndSamples(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	r := &Report{Sessions: []string{"s"},
		Checkpoints: []ReportRow{{Session: "s", CheckpointID: "cp_001", CreatedAt: at(0)}, {Session: "s", CheckpointID: "cp_002", CreatedAt: at(2), Trigger: "compaction"},
			{Session: "s", CheckpointID: "cp_003", CreatedAt: at(5)}},
		Readings: []ReportReading{{Session: "s", At: at(0), Utilization: 0.4}, {Session: "s", At: at(2), Utilization: 0.9}, {Session: "s", At: at(3), Utilization: 0.1}},
	}
	lines := r.contextLines()
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1", len(lines))
	}
	start, end := lines[0].span()
	if !start.Equal(at(0)) || !end.Equal(at(5)) {
		t.Errorf("span %v – %v, want 10:00 – 10:05 (the last reading held to the last checkpoint)", start, end)
	}
	cp := func(id string) *workspace.Resolved {
		return &workspace.Resolved{Session: "s", Checkpoint: &spec.Checkpoint{Meta: spec.Meta{CheckpointID: id}}}
	}
	r.Session, r.Base, r.Head, r.Zone = "s", cp("cp_001"), cp("cp_003"), time.UTC
	md := renderReport(r, renderLimits{rows: -1, files: -1, steps: -1, charts: -1, entries: -1})
	if !strings.Contains(md, "line [40, 40, 90, 10, 10, 10]") {
		t.Errorf("the samples lose the peak or the drop:\n%s", md)
	}
}
