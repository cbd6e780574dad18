package review

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
)

// FormatHTML is the report as one self-contained page (docs/cli.md#report).
const FormatHTML = "html"

//go:embed reporthtml.tmpl
var reportHTMLSource string

// reportHTMLTemplate escapes everything the history holds: plan names,
// topics, decisions and paths are the agent's text. Parsed on first use,
// not at package initialisation, which every ctxgit process (a hook's on
// every tool call) would pay (docs/PERFORMANCE.md, "Cost per tool call").
var reportHTMLTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(reportHTMLSource))
})

// RenderReportHTML renders a report as one HTML page that needs nothing
// else: the chart is inline SVG, the style inline CSS, and there is no
// script, so it opens offline and from a file. Hover text is SVG <title>,
// which browsers show as a tooltip. Like RenderReport it depends only on
// the report.
func RenderReportHTML(r *Report) ([]byte, error) {
	var b bytes.Buffer
	if err := reportHTMLTemplate().Execute(&b, htmlPage(r)); err != nil {
		return nil, fmt.Errorf("rendering the HTML report: %w", err)
	}
	return b.Bytes(), nil
}

// htmlReport is what the page template shows.
type htmlReport struct {
	Title, Goal, Summary string
	Chart                *htmlChart
	PlanDone, PlanTotal  int
	PlanPercent          int
	Checklist            []htmlStep
	Decisions, Failures  []htmlEntry
	Files                []htmlFile
	FilesSummary         string
	Rows                 []htmlRow
	Multi                bool
}

type htmlStep struct{ Number, Name, Status, Mark, Note string }

type htmlEntry struct{ Text, Detail, At string }

type htmlFile struct {
	Path, Status, Added, Removed string
	// AddedWidth and RemovedWidth are the bar's parts, in percent of the
	// largest change.
	AddedWidth, RemovedWidth int
}

type htmlRow struct {
	Session, ID, When, Trigger, Context, Plan, Changes, Topic string
	Compaction                                                bool
}

// The chart's geometry, in SVG user units: the plot, then a lane each for
// checkpoints, decisions and failures under it.
const (
	chartWidth  = 960
	chartLeft   = 96
	chartRight  = 24
	chartTop    = 28
	plotHeight  = 200
	laneGap     = 26
	chartHeight = chartTop + plotHeight + 34 + 3*laneGap + 8
)

type htmlChart struct {
	Width, Height          int
	Left, Right, Top, Base int // plot edges
	Grid                   []htmlTick
	XTicks                 []htmlTick
	Series                 []htmlSeries
	Compactions            []htmlMark
	Checkpoints            []htmlMark
	Decisions, Failures    []htmlMark
	Lanes                  []htmlTick
	Legend                 []htmlLegend
}

type htmlTick struct {
	X, Y  float64
	Label string
}

type htmlSeries struct {
	Class  string
	Points string
	// Area is Points closed along the base, shaded under the line.
	Area string
	Dots []htmlMark
}

type htmlMark struct {
	X, Y  float64
	Class string
	Hover string
}

type htmlLegend struct{ Class, Label string }

func htmlPage(r *Report) htmlReport {
	p := htmlReport{Title: safetext.Line(r.Title), Goal: safetext.Line(r.Goal), Multi: len(r.Sessions) > 1}
	if p.Title == "" {
		names := make([]string, len(r.Sessions))
		for i, k := range r.Sessions {
			names[i] = r.plainTitled(k)
		}
		p.Title = "Session " + strings.Join(names, ", ")
	}
	n := len(r.Checkpoints)
	switch {
	case n == 0:
		p.Summary = "No checkpoints after " + r.Base.Checkpoint.Meta.CheckpointID + "."
	case n == 1:
		p.Summary = fmt.Sprintf("%s at %s.", plural(n, "checkpoint"), stamp(r.Checkpoints[0].CreatedAt))
	default:
		first, last := r.Checkpoints[0].CreatedAt, r.Checkpoints[n-1].CreatedAt
		p.Summary = fmt.Sprintf("%s from %s to %s (%s).", plural(n, "checkpoint"), stamp(first), stamp(last), spanText(last.Sub(first)))
	}
	if n > 0 {
		p.Chart = htmlTimeline(r)
	}
	for _, s := range r.Checklist {
		st := htmlStep{Number: safetext.Line(s.Number), Name: safetext.Line(s.Name), Status: string(s.Status)}
		switch s.Status {
		case spec.StepDone:
			st.Mark = "✓"
			p.PlanDone++
		case spec.StepInProgress:
			st.Mark, st.Note = "▸", "in progress"
		case spec.StepFailed:
			st.Mark, st.Note = "✗", "failed"
			if s.FailReason != "" {
				st.Note += ": " + safetext.Line(s.FailReason)
			}
		default:
			st.Mark = "○"
		}
		p.Checklist = append(p.Checklist, st)
	}
	p.PlanTotal = len(r.Checklist)
	if p.PlanTotal > 0 {
		p.PlanPercent = p.PlanDone * 100 / p.PlanTotal
	}
	for _, d := range r.Decisions {
		e := htmlEntry{Text: removedPrefix(d.Change) + d.ID + " " + safetext.Line(d.What), At: atText(d.Change, d.At)}
		if d.Why != "" {
			e.Detail = "why: " + safetext.Line(d.Why)
		}
		p.Decisions = append(p.Decisions, e)
	}
	for _, f := range r.Failures {
		e := htmlEntry{Text: removedPrefix(f.Change) + FailureText(f.FailureEntry), At: atText(f.Change, f.At)}
		if f.Lesson != "" && f.Change != ChangeRemoved {
			e.Detail = "lesson: " + safetext.Line(f.Lesson)
		}
		p.Failures = append(p.Failures, e)
	}
	if len(r.Files) > 0 {
		p.FilesSummary = StatSummary(Totals(r.Files))
		most := 1
		for _, f := range r.Files {
			most = max(most, f.Added+f.Removed)
		}
		for _, f := range r.Files {
			hf := htmlFile{Path: safetext.Path(f.Path), Status: statusWord[f.Status], Added: fmt.Sprint(f.Added), Removed: fmt.Sprint(f.Removed),
				AddedWidth: f.Added * 100 / most, RemovedWidth: f.Removed * 100 / most}
			if f.From != "" {
				hf.Path += " (from " + safetext.Path(f.From) + ")"
			}
			switch f.Lines {
			case LinesBinary, LinesTooLarge, LinesSubmodule:
				hf.Added, hf.Removed, hf.AddedWidth, hf.RemovedWidth = f.Lines, "", 0, 0
			case LinesEstimated:
				hf.Added, hf.Removed = "~"+hf.Added, "~"+hf.Removed
			}
			p.Files = append(p.Files, hf)
		}
	}
	for _, c := range r.Checkpoints {
		plan := "—"
		if c.PlanTotal > 0 {
			plan = fmt.Sprintf("%d/%d", c.PlanDone, c.PlanTotal)
		}
		p.Rows = append(p.Rows, htmlRow{Session: safetext.Line(r.short(c.Session)), ID: c.CheckpointID, When: stamp(c.CreatedAt),
			Trigger: safetext.Line(c.Trigger), Context: usageText(c.TokenUsage), Plan: plan, Changes: rowChanges(c),
			Topic: truncateRunes(c.Topic, 90), Compaction: c.Trigger == spec.TriggerCompaction})
	}
	return p
}

// htmlTimeline lays the checkpoints out on a time axis (evenly, when they
// all carry one time): context fill as a line per session, compactions as
// vertical rules, and a lane each for checkpoints, decisions and failures,
// each mark placed at the checkpoint that first shows it.
func htmlTimeline(r *Report) *htmlChart {
	c := &htmlChart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Right: chartWidth - chartRight, Top: chartTop, Base: chartTop + plotHeight}
	rows := r.Checkpoints
	first, last := rows[0].CreatedAt, rows[len(rows)-1].CreatedAt
	span := last.Sub(first)
	byTime := span > 0
	plotW := float64(c.Right - c.Left)
	xOf := func(i int) float64 {
		switch {
		case byTime:
			return float64(c.Left) + plotW*float64(rows[i].CreatedAt.Sub(first))/float64(span)
		case len(rows) == 1:
			return float64(c.Left) + plotW/2
		default:
			return float64(c.Left) + plotW*float64(i)/float64(len(rows)-1)
		}
	}
	yOf := func(u float64) float64 {
		u = math.Max(0, math.Min(1, u))
		return float64(c.Base) - u*plotHeight
	}
	for _, pct := range []int{0, 25, 50, 75, 100} {
		c.Grid = append(c.Grid, htmlTick{Y: yOf(float64(pct) / 100), Label: fmt.Sprintf("%d%%", pct)})
	}
	c.XTicks = timeTicks(first, last, byTime, len(rows), xOf, float64(c.Left), plotW)
	laneY := func(k int) float64 { return float64(c.Base) + 34 + float64(k)*laneGap + laneGap/2 }
	c.Lanes = []htmlTick{{Y: laneY(0), Label: "checkpoints"}, {Y: laneY(1), Label: "decisions"}, {Y: laneY(2), Label: "failures"}}

	x := map[string]float64{} // checkpoint (session:id) → x
	series := map[string]*htmlSeries{}
	var order []string
	for i, row := range rows {
		xi := round1(xOf(i))
		x[row.Session+":"+row.CheckpointID] = xi
		label := ""
		if len(r.Sessions) > 1 {
			label = r.short(row.Session)
		}
		hover := checkpointHover(row, label)
		c.Checkpoints = append(c.Checkpoints, htmlMark{X: xi, Y: laneY(0), Class: "cp " + triggerClass(row.Trigger), Hover: hover})
		if row.Trigger == spec.TriggerCompaction {
			c.Compactions = append(c.Compactions, htmlMark{X: xi, Hover: "compaction at " + row.CheckpointID + " (" + stamp(row.CreatedAt) + ")"})
		}
		if row.TokenUsage.Source == "" {
			continue
		}
		s := series[row.Session]
		if s == nil {
			s = &htmlSeries{Class: fmt.Sprintf("s%d", len(order)%4)}
			series[row.Session] = s
			order = append(order, row.Session)
		}
		y := round1(yOf(row.TokenUsage.Utilization))
		s.Points += fmt.Sprintf("%g,%g ", xi, y)
		s.Dots = append(s.Dots, htmlMark{X: xi, Y: y, Class: triggerClass(row.Trigger), Hover: hover})
	}
	for _, k := range order {
		s := series[k]
		s.Points = strings.TrimSpace(s.Points)
		if len(s.Dots) > 0 {
			s.Area = fmt.Sprintf("%g,%d %s %g,%d", s.Dots[0].X, c.Base, s.Points, s.Dots[len(s.Dots)-1].X, c.Base)
		}
		c.Series = append(c.Series, *s)
		if len(r.Sessions) > 1 {
			c.Legend = append(c.Legend, htmlLegend{Class: s.Class, Label: "session " + r.plainTitled(k)})
		}
	}
	// A decision or failure is marked when it was recorded, if that is in
	// the chart's span; else at the checkpoint that first shows it (one
	// recorded before the range, at its first checkpoint).
	at := func(when time.Time, id string) float64 {
		if byTime && !when.Before(first) && !when.After(last) {
			return round1(float64(c.Left) + plotW*float64(when.Sub(first))/float64(span))
		}
		for _, row := range rows {
			if row.CheckpointID == id {
				return x[row.Session+":"+id]
			}
		}
		return float64(c.Left)
	}
	for _, d := range r.Decisions {
		c.Decisions = append(c.Decisions, htmlMark{X: at(d.When, d.At), Y: laneY(1), Hover: removedPrefix(d.Change) + DecisionText(d.Decision) + " (" + atText(d.Change, d.At) + ")"})
	}
	for _, f := range r.Failures {
		c.Failures = append(c.Failures, htmlMark{X: at(f.When, f.At), Y: laneY(2), Hover: removedPrefix(f.Change) + FailureText(f.FailureEntry) + " (" + atText(f.Change, f.At) + ")"})
	}
	return c
}

// checkpointHover is a checkpoint's tooltip: its subject, when, context,
// topic and the files it changed (the first eight); session, the short
// id, names it when the report has several sessions.
func checkpointHover(c ReportRow, session string) string {
	name := c.CheckpointID
	if session != "" {
		name = session + ":" + name
	}
	lines := []string{fmt.Sprintf("checkpoint %s (%s)", name, c.Trigger), stamp(c.CreatedAt) + " · context " + usageText(c.TokenUsage)}
	if c.Topic != "" {
		lines = append(lines, c.Topic)
	}
	lines = append(lines, rowChanges(c))
	const shown = 8
	for i, p := range c.Paths {
		if i == shown {
			lines = append(lines, fmt.Sprintf("… and %d more", len(c.Paths)-shown))
			break
		}
		lines = append(lines, "  "+safetext.Path(p))
	}
	return strings.Join(lines, "\n")
}

// triggerClass is a CSS class for a trigger: the hook-driven ones share a
// colour, manual and compaction have their own.
func triggerClass(t string) string {
	switch t {
	case spec.TriggerManual:
		return "manual"
	case spec.TriggerCompaction:
		return "compaction"
	default:
		return "auto"
	}
}

// timeTicks labels the time axis at round times (every 1, 2, 5, 10, 15
// or 30 minutes, or hours or days), at most six across the span, the
// first with its date; without a span, the checkpoints' one time.
func timeTicks(first, last time.Time, byTime bool, n int, xOf func(int) float64, left, width float64) []htmlTick {
	if !byTime {
		return []htmlTick{{X: round1(xOf(0)), Label: stamp(first)}}
	}
	span := last.Sub(first)
	steps := []time.Duration{time.Second, 5 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= 5 {
			step = s
			break
		}
	}
	layout := "15:04"
	if step < time.Minute {
		layout = "15:04:05"
	} else if step >= 24*time.Hour {
		layout = "Jan 2"
	}
	var ticks []htmlTick
	dated := false
	for t := first.UTC().Truncate(step); !t.After(last); t = t.Add(step) {
		if t.Before(first) {
			continue
		}
		label := t.Format(layout)
		if !dated {
			label = t.Format("2006-01-02 ") + label + " UTC"
			dated = true
		}
		ticks = append(ticks, htmlTick{X: round1(left + width*float64(t.Sub(first))/float64(span)), Label: label})
	}
	return ticks
}

// spanText is a duration for people: "42 min", "3 h 5 min", "2 days".
func spanText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) % 60; m > 0 {
			return fmt.Sprintf("%d h %d min", h, m)
		}
		return fmt.Sprintf("%d h", h)
	default:
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
