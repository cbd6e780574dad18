package review

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
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
	if err := reportHTMLTemplate().Execute(&b, htmlPage(r.forPeople())); err != nil {
		return nil, fmt.Errorf("rendering the HTML report: %w", err)
	}
	return b.Bytes(), nil
}

// htmlReport is what the page template shows: the report's sections in
// the order Sections gives them, as Markdown has them.
type htmlReport struct {
	Title, Goal string
	// Scope and Summary are sentences with <code> and <time> in them,
	// built from escaped parts.
	Scope, Summary template.HTML
	Sections       []ReportSection
	Commits        []htmlCommit
	Files          []htmlFile
	FilesSummary   string
	Uncommitted    []htmlFile
	UncommittedSum string
	Instructions   []htmlInstruction
	PlanDone       int
	PlanTotal      int
	PlanPercent    int
	Checklist      []htmlStep
	Decisions      []htmlEntry
	Failures       []htmlEntry
	FailureCounts  string
	Open           []string
	Closed         []htmlEntry
	Chart          *htmlChart
	ChartNote      string
	Rows           []htmlRow
	Multi          bool
	PlanProgress   string
	Steps          []string
	Task           []string
	Zone           string
}

// htmlTime is a time in the reader's zone, with its ISO stamp to hover.
type htmlTime = reportTime

type htmlStep struct{ Number, Name, Status, Mark, Note string }

// htmlEntry is a decision, failure or closed item: State is open,
// resolved or removed for a failure.
type htmlEntry struct {
	Text, Detail, At string
	When             *htmlTime
	State, StateText string
}

type htmlCommit struct {
	Short, Commit, Subject, Link string
	When                         htmlTime
}

type htmlInstruction struct {
	Text, At string
	When     htmlTime
}

type htmlFile struct {
	Path, Status, Added, Removed string
	// AddedWidth and RemovedWidth are the bar's parts, in percent of the
	// largest change.
	AddedWidth, RemovedWidth int
	Patch                    []htmlPatchLine
	PatchNote                string
}

// htmlPatchLine is one line of a file's patch and its kind (meta, hunk,
// add, del, or "" for context).
type htmlPatchLine struct{ Class, Text string }

type htmlRow struct {
	Session, ID, Trigger, Context, Plan, Changes, Topic string
	When                                                htmlTime
	Until                                               *htmlTime
	Compaction                                          bool
}

// The chart's geometry, in SVG user units: the plot, then a lane each for
// checkpoints, decisions and failures under it. The compaction labels sit
// above the plot, in two rows.
const (
	chartWidth  = 960
	chartLeft   = 96
	chartRight  = 24
	chartTop    = 44
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
	X, Y   float64
	Label  string
	Anchor string // text-anchor
}

// htmlSeries is one session's context line: pieces of a step line (each
// a polyline, with the area under it) and a dot at each reading.
type htmlSeries struct {
	Class  string
	Pieces []htmlPiece
	Dots   []htmlMark
}

type htmlPiece struct {
	Points string
	// Area is Points closed along the base, shaded under the line.
	Area string
}

type htmlMark struct {
	X, Y  float64
	Class string
	Hover string
	// Shape is the mark itself, drawn by markShape.
	Shape template.HTML
	// Label is a compaction's text, "" when it would overlap another;
	// LabelX and Anchor place it, LabelY is its baseline.
	Label          string
	LabelX, LabelY float64
	Anchor         string
}

// htmlLegend is one key of the legend: the mark as the chart draws it
// (markShape, at the key's size), and what it means.
type htmlLegend struct {
	Shape template.HTML
	Label string
}

// The kinds of mark the chart draws, each with its legend key's words,
// in the legend's order. The key and the plotted mark come from one
// function, markShape, so they cannot differ.
var markKinds = []struct{ kind, label string }{
	{"reading", "reading by a hook or the status line"},
	{"cp auto", "hook checkpoint"},
	{"cp manual", "manual checkpoint"},
	{"cp compaction", "compaction checkpoint"},
	{"compaction-rule", "compaction"},
	{"decision", "decision"},
	{"failure open", "failure, open"},
	{"failure resolved", "failure, resolved"},
}

// markShape draws a mark of kind centred on x, y; height is a rule's
// length (from y down). Every value is a number or one of markKinds'
// classes, so the markup is safe as it is.
func markShape(kind string, x, y, height float64) template.HTML {
	var s string
	switch kind {
	case "reading":
		s = fmt.Sprintf(`<circle class="dot reading" data-mark="reading" cx="%g" cy="%g" r="3"/>`, x, y)
	case "cp auto", "cp manual", "cp compaction":
		s = fmt.Sprintf(`<circle class="dot %s" data-mark="%s" cx="%g" cy="%g" r="5"/>`, kind, kind, x, y)
	case "compaction-rule":
		s = fmt.Sprintf(`<line class="rule" data-mark="compaction-rule" x1="%g" x2="%g" y1="%g" y2="%g"/>`, x, x, y, y+height)
	case "decision":
		s = fmt.Sprintf(`<path class="decision" data-mark="decision" d="M%g %g m0 -6 l6 6 l-6 6 l-6 -6 z"/>`, x, y)
	case "failure open", "failure resolved":
		s = fmt.Sprintf(`<path class="%s" data-mark="%s" d="M%g %g m-4 -4 l8 8 m0 -8 l-8 8"/>`, kind, kind, x, y)
	}
	return template.HTML(s) // numbers and fixed classes only: nothing to escape
}

func htmlPage(r *Report) htmlReport {
	p := htmlReport{Title: safetext.Line(r.Title), Goal: safetext.Line(r.Goal), Multi: len(r.Sessions) > 1, Sections: r.Sections()}
	if p.Title == "" {
		names := make([]string, len(r.Sessions))
		for i, k := range r.Sessions {
			names[i] = r.plainTitled(k)
		}
		p.Title = "Session " + strings.Join(names, ", ")
	}
	if r.Scope == ScopeBranch {
		p.Scope = template.HTML(r.scopeSentence(htmlCode))
	}
	n := len(r.Checkpoints)
	if n == 0 {
		p.Summary = template.HTML(html.EscapeString("No checkpoints after " + r.Base.Checkpoint.Meta.CheckpointID + "."))
	} else {
		p.Zone = r.zoneName(r.Checkpoints[0].CreatedAt)
		who := "Session " + r.plainTitled(r.Session)
		if p.Multi {
			names := make([]string, len(r.Sessions))
			for i, k := range r.Sessions {
				names[i] = r.plainTitled(k)
			}
			who = "Sessions " + strings.Join(names, ", ")
		}
		sum := html.EscapeString(who) + ": " + r.spanSentence(htmlTimeTag) + "."
		if r.Scope != ScopeBranch {
			if why := r.scopeSentence(htmlCode); why != "" {
				sum += " " + html.EscapeString(why)
			}
		}
		p.Summary = template.HTML(sum)
		p.Chart = htmlTimeline(r)
		p.ChartNote = fmt.Sprintf("%s, each held until the next; %s.", plural(len(r.Readings), "reading"), compactionWords(r))
	}
	for _, c := range r.Commits {
		p.Commits = append(p.Commits, htmlCommit{Short: c.Commit[:7], Commit: c.Commit, Subject: safetext.Line(c.Subject),
			Link: commitLink(c, func(s string) string { return s }), When: r.at(c.When)})
	}
	p.Files, p.FilesSummary = htmlFiles(r.Files)
	p.Uncommitted, p.UncommittedSum = htmlFiles(r.Uncommitted)
	for _, in := range r.Instructions {
		p.Instructions = append(p.Instructions, htmlInstruction{Text: safetext.Line(in.Text), At: in.At, When: r.at(in.When)})
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
		if !d.When.IsZero() {
			t := r.at(d.When)
			e.When = &t
		}
		if d.Why != "" {
			e.Detail = "why: " + safetext.Line(d.Why)
		}
		p.Decisions = append(p.Decisions, e)
	}
	open, resolved := r.failureCounts()
	p.FailureCounts = fmt.Sprintf("%d open, %d resolved.", open, resolved)
	for _, f := range r.Failures {
		e := htmlEntry{At: atText(f.Change, f.At), State: "open", StateText: "Open"}
		switch {
		case f.Change == ChangeRemoved:
			e.State, e.StateText = "removed", "removed"
		case f.IsResolved():
			e.State, e.StateText = "resolved", capitalize(r.resolvedText(f, func(t reportTime) string { return t.Text }))
		}
		e.Text = safetext.Line(f.Summary)
		if head := r.failureHead(f.FailureEntry, func(t reportTime) string { return t.Text }); head != "" {
			e.Text = head + ": " + e.Text
		}
		if f.Lesson != "" && f.Change != ChangeRemoved {
			e.Detail = "lesson: " + safetext.Line(f.Lesson)
		}
		p.Failures = append(p.Failures, e)
	}
	for _, o := range r.Open {
		p.Open = append(p.Open, safetext.Line(o))
	}
	for _, o := range r.closedItems() {
		p.Closed = append(p.Closed, htmlEntry{Text: safetext.Line(o.Text), At: o.At})
	}
	for _, row := range tableRows(r.Checkpoints) {
		c := row.last
		plan := "—"
		if c.PlanTotal > 0 {
			plan = fmt.Sprintf("%d/%d", c.PlanDone, c.PlanTotal)
		}
		hr := htmlRow{Session: safetext.Line(r.short(c.Session)), ID: c.CheckpointID, When: r.at(c.CreatedAt),
			Trigger: safetext.Line(c.Trigger), Context: usageText(c.TokenUsage), Plan: plan, Changes: rowChanges(c),
			Topic: truncateRunes(c.Topic, 90), Compaction: c.Trigger == spec.TriggerCompaction}
		if row.n > 1 {
			from := r.at(row.first.CreatedAt)
			hr.ID = row.first.CheckpointID + " – " + c.CheckpointID
			hr.When = from
			until := r.at(c.CreatedAt)
			hr.Until = &until
			hr.Trigger, hr.Changes = fmt.Sprintf("%d automatic", row.n), "no changes"
		}
		p.Rows = append(p.Rows, hr)
	}
	headName, baseName := r.Head.Checkpoint.Meta.CheckpointID, r.Base.Checkpoint.Meta.CheckpointID
	if p.Multi {
		headName, baseName = r.cpName(r.Head), r.cpName(r.Base)
	}
	p.PlanProgress = fmt.Sprintf("%d of %d steps done at %s; %d of %d at %s.", r.Plan.FromDone, r.Plan.FromTotal, baseName, r.Plan.ToDone, r.Plan.ToTotal, headName)
	for _, s := range r.Steps {
		p.Steps = append(p.Steps, s.At+": "+StepChangeText(s.StepChange))
	}
	for _, t := range r.Task {
		from, to := t.From, t.To
		if from == "" {
			from = "(none)"
		}
		if to == "" {
			to = "(none)"
		}
		p.Task = append(p.Task, t.Field+": "+safetext.Line(from)+" → "+safetext.Line(to))
	}
	return p
}

// htmlCode is a name in the page's running text.
func htmlCode(s string) string { return "<code>" + html.EscapeString(s) + "</code>" }

// htmlTimeTag is a time in the page's running text.
func htmlTimeTag(t reportTime) string {
	return `<time datetime="` + html.EscapeString(t.ISO) + `" title="` + html.EscapeString(t.ISO) + `">` + html.EscapeString(t.Text) + `</time>`
}

// htmlFiles are files as the page's tables show them, with their patches
// (when the report kept them), and their summary line.
func htmlFiles(files []FileDiff) ([]htmlFile, string) {
	if len(files) == 0 {
		return nil, ""
	}
	most := 1
	for _, f := range files {
		most = max(most, f.Added+f.Removed)
	}
	var out []htmlFile
	for _, f := range files {
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
		if strings.HasPrefix(f.Patch, "(") {
			hf.PatchNote = f.Patch
		} else if f.Patch != "" {
			for _, line := range strings.Split(strings.TrimSuffix(f.Patch, "\n"), "\n") {
				cls := ""
				switch {
				case strings.HasPrefix(line, "@@"):
					cls = "hunk"
				case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), !strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "-") && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\\"):
					cls = "meta"
				case strings.HasPrefix(line, "+"):
					cls = "add"
				case strings.HasPrefix(line, "-"):
					cls = "del"
				}
				hf.Patch = append(hf.Patch, htmlPatchLine{Class: cls, Text: strings.ToValidUTF8(line, "\uFFFD")})
			}
		}
		out = append(out, hf)
	}
	return out, StatSummary(Totals(files))
}

// htmlTimeline lays the report out on a time axis (evenly, when every
// checkpoint carries one time): each session's context as measured (a
// step line through every reading, a compaction a drop at its instant),
// compactions as vertical rules, and a lane each for checkpoints,
// decisions and failures. No two labels overlap: a label that would is
// left out, and its mark keeps its hover text.
func htmlTimeline(r *Report) *htmlChart {
	c := &htmlChart{Width: chartWidth, Height: chartHeight, Left: chartLeft, Right: chartWidth - chartRight, Top: chartTop, Base: chartTop + plotHeight}
	rows := r.Checkpoints
	first, last := rows[0].CreatedAt, rows[len(rows)-1].CreatedAt
	span := last.Sub(first)
	byTime := span > 0
	plotW := float64(c.Right - c.Left)
	xOfTime := func(t time.Time) float64 {
		if !byTime {
			return float64(c.Left) + plotW/2
		}
		return round1(float64(c.Left) + plotW*float64(t.Sub(first))/float64(span))
	}
	xOfRow := func(i int) float64 {
		switch {
		case byTime:
			return xOfTime(rows[i].CreatedAt)
		case len(rows) == 1:
			return round1(float64(c.Left) + plotW/2)
		default:
			return round1(float64(c.Left) + plotW*float64(i)/float64(len(rows)-1))
		}
	}
	yOf := func(u float64) float64 {
		u = math.Max(0, math.Min(1, u))
		return round1(float64(c.Base) - u*plotHeight)
	}
	for _, pct := range []int{0, 25, 50, 75, 100} {
		c.Grid = append(c.Grid, htmlTick{Y: yOf(float64(pct) / 100), Label: fmt.Sprintf("%d%%", pct), Anchor: "end"})
	}
	c.XTicks = timeTicks(r, first, last, byTime, float64(c.Left), plotW)
	laneY := func(k int) float64 { return float64(c.Base) + 34 + float64(k)*laneGap + laneGap/2 }
	c.Lanes = []htmlTick{{Y: laneY(0), Label: "checkpoints", Anchor: "end"}, {Y: laneY(1), Label: "decisions", Anchor: "end"}, {Y: laneY(2), Label: "failures", Anchor: "end"}}

	x := map[string]float64{} // checkpoint (session:id) → x
	var labels labelRows
	for i, row := range rows {
		xi := xOfRow(i)
		x[row.Session+":"+row.CheckpointID] = xi
		name := ""
		if len(r.Sessions) > 1 {
			name = r.short(row.Session)
		}
		c.Checkpoints = append(c.Checkpoints, htmlMark{X: xi, Y: laneY(0), Class: "cp " + triggerClass(row.Trigger), Hover: checkpointHover(r, row, name)})
		if row.Trigger == spec.TriggerCompaction {
			m := htmlMark{X: xi, Y: float64(c.Top), Class: "compaction-rule", Shape: markShape("compaction-rule", xi, float64(c.Top), plotHeight),
				Hover: "compaction at " + row.CheckpointID + " (" + r.at(row.CreatedAt).Text + ", " + stamp(row.CreatedAt) + ")"}
			w := textWidth("compaction", true)
			lx, anchor, x0 := fitLabel(xi, w, float64(c.Left), float64(c.Right))
			if y, ok := labels.place(x0, w, []float64{float64(c.Top) - 10, float64(c.Top) - 24}); ok {
				m.Label, m.LabelX, m.LabelY, m.Anchor = "compaction", lx, y, anchor
			}
			c.Compactions = append(c.Compactions, m)
		}
	}
	for k, line := range r.contextLines() {
		s := htmlSeries{Class: fmt.Sprintf("s%d", k%4)}
		for _, piece := range line.Pieces {
			var pts []string
			for _, v := range piece {
				px, py := xOfTime(v.At), yOf(v.Value)
				pts = append(pts, fmt.Sprintf("%g,%g", px, py))
				if v.Reading != nil {
					s.Dots = append(s.Dots, htmlMark{X: px, Y: py, Class: readingClass(*v.Reading, rows), Hover: readingHover(r, *v.Reading)})
				}
			}
			points := strings.Join(pts, " ")
			s.Pieces = append(s.Pieces, htmlPiece{Points: points,
				Area: fmt.Sprintf("%g,%d %s %g,%d", xOfTime(piece[0].At), c.Base, points, xOfTime(piece[len(piece)-1].At), c.Base)})
		}
		c.Series = append(c.Series, s)
		label := "context, as measured (each reading holds until the next)"
		if len(r.Sessions) > 1 {
			label = "session " + r.plainTitled(line.Session)
		}
		c.Legend = append(c.Legend, htmlLegend{Label: label,
			Shape: template.HTML(fmt.Sprintf(`<line class="fill %s" data-mark="line %s" x1="1" x2="17" y1="7" y2="7"/>`, s.Class, s.Class))}) // a fixed class: nothing to escape
	}
	// A decision or failure is marked when it was recorded, if that is in
	// the chart's span; else at the checkpoint that first shows it (one
	// recorded before the range, at its first checkpoint).
	at := func(when time.Time, id string) float64 {
		if byTime && !when.Before(first) && !when.After(last) {
			return xOfTime(when)
		}
		// id is SESSION:cp_NNN in a report of several sessions, the
		// session by its short id as the page shows it (forPeople).
		for _, row := range rows {
			if row.CheckpointID == id || r.short(row.Session)+":"+row.CheckpointID == id || row.Session+":"+row.CheckpointID == id {
				return x[row.Session+":"+row.CheckpointID]
			}
		}
		return float64(c.Left)
	}
	for _, d := range r.Decisions {
		c.Decisions = append(c.Decisions, htmlMark{X: at(d.When, d.At), Y: laneY(1), Class: "decision", Hover: removedPrefix(d.Change) + DecisionText(d.Decision) + " (" + atText(d.Change, d.At) + ")"})
	}
	for _, f := range r.Failures {
		hover := removedPrefix(f.Change) + FailureText(f.FailureEntry) + " (" + atText(f.Change, f.At) + ")"
		if f.IsResolved() && f.Change != ChangeRemoved {
			hover += "\n" + r.resolvedText(f, func(t reportTime) string { return t.Text })
		}
		cls := "open"
		if f.IsResolved() {
			cls = "resolved"
		}
		c.Failures = append(c.Failures, htmlMark{X: at(f.When, f.At), Y: laneY(2), Class: "failure " + cls, Hover: hover})
	}
	// Each mark drawn, and a legend key for each kind drawn: no key for a
	// mark the chart does not have.
	drawn := map[string]bool{}
	for _, list := range [][]htmlMark{c.Checkpoints, c.Decisions, c.Failures} {
		for i := range list {
			list[i].Shape = markShape(list[i].Class, list[i].X, list[i].Y, 0)
			drawn[list[i].Class] = true
		}
	}
	for _, s := range c.Series {
		for i := range s.Dots {
			s.Dots[i].Shape = markShape(s.Dots[i].Class, s.Dots[i].X, s.Dots[i].Y, 0)
			drawn[s.Dots[i].Class] = true
		}
	}
	if len(c.Compactions) > 0 {
		drawn["compaction-rule"] = true
	}
	for _, k := range markKinds {
		if !drawn[k.kind] {
			continue
		}
		y := 7.0
		if k.kind == "compaction-rule" {
			y = 0 // a rule runs the key's height
		}
		c.Legend = append(c.Legend, htmlLegend{Shape: markShape(k.kind, 9, y, 14), Label: k.label})
	}
	return c
}

// readingClass is a reading's dot: a checkpoint's in its trigger's
// colour, a hook's or the status line's plain.
func readingClass(rd ReportReading, rows []ReportRow) string {
	if rd.Checkpoint == "" {
		return "reading"
	}
	for _, row := range rows {
		if row.Session == rd.Session && row.CheckpointID == rd.Checkpoint {
			return "cp " + triggerClass(row.Trigger)
		}
	}
	return "reading"
}

// readingHover says what a reading measured, when, and where it came
// from.
func readingHover(r *Report, rd ReportReading) string {
	u := spec.TokenUsage{Utilization: rd.Utilization, InputTokens: rd.Tokens, ContextWindow: rd.Window, Source: rd.Source}
	what := "reading by a hook or the status line"
	if rd.Checkpoint != "" {
		what = "recorded by checkpoint " + rd.Checkpoint
	}
	return "context " + usageText(u) + "\n" + r.at(rd.At).Text + " (" + stamp(rd.At) + ") · " + what
}

// labelRows places labels on the rows above the plot so that none
// overlaps another.
type labelRows struct{ placed []labelBox }

type labelBox struct{ x0, x1, y float64 }

// place finds the first row (a baseline of ys) where a label of width
// starting at x0 overlaps nothing placed; ok is false when none has room.
func (l *labelRows) place(x0, width float64, ys []float64) (float64, bool) {
	const gap = 6
	x1 := x0 + width
	for _, y := range ys {
		free := true
		for _, b := range l.placed {
			if b.y == y && x0 < b.x1+gap && x1 > b.x0-gap {
				free = false
				break
			}
		}
		if free {
			l.placed = append(l.placed, labelBox{x0, x1, y})
			return y, true
		}
	}
	return 0, false
}

// fitLabel places a label of width w for a mark at x within [lo, hi]:
// centred on x where it fits, else starting at lo or ending at hi. It
// returns the text's x, its text-anchor and where it starts.
func fitLabel(x, w, lo, hi float64) (textX float64, anchor string, x0 float64) {
	switch {
	case x-w/2 < lo:
		return lo, "start", lo
	case x+w/2 > hi:
		return hi, "end", hi - w
	}
	return x, "middle", x - w/2
}

// textWidth is an upper estimate of a label's width at the chart's 11 px
// type: wide enough that labels placed by it do not touch in a browser
// (report_html_chromium.txtar measures them).
func textWidth(s string, bold bool) float64 {
	per := 6.6
	if bold {
		per = 7.2
	}
	return float64(len([]rune(s))) * per
}

// checkpointHover is a checkpoint's tooltip: its subject, when, context,
// topic and the files it changed (the first eight); session, the short
// id, names it when the report has several sessions.
func checkpointHover(r *Report, c ReportRow, session string) string {
	name := c.CheckpointID
	if session != "" {
		name = session + ":" + name
	}
	lines := []string{fmt.Sprintf("checkpoint %s (%s)", name, c.Trigger), r.at(c.CreatedAt).Text + " (" + stamp(c.CreatedAt) + ") · context " + usageText(c.TokenUsage)}
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

// timeTicks labels the time axis at round times of the report's zone
// (every 1, 2, 5, 10, 15 or 30 minutes, or hours or days), at most six
// across the span, the first with its date; a label that would overlap
// the one before it is left out. Without a span, the checkpoints' one
// time.
func timeTicks(r *Report, first, last time.Time, byTime bool, left, width float64) []htmlTick {
	zone := r.zone()
	if !byTime {
		t := first.In(zone)
		return []htmlTick{{X: round1(left + width/2), Label: t.Format("2006-01-02 15:04 ") + r.zoneName(first), Anchor: "middle"}}
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
	// Round times of the zone: from its midnight before the span, in
	// steps.
	l := first.In(zone)
	t := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, zone)
	if skip := first.Sub(t) / step; skip > 0 {
		t = t.Add(skip * step)
	}
	var ticks []htmlTick
	lastEnd := math.Inf(-1)
	dated := false
	for ; !t.After(last); t = t.Add(step) {
		if t.Before(first) {
			continue
		}
		label := t.In(zone).Format(layout)
		if !dated {
			label = t.In(zone).Format("2006-01-02 ") + label + " " + r.zoneName(t)
		}
		x := round1(left + width*float64(t.Sub(first))/float64(span))
		w := textWidth(label, false)
		// Within the plot's width: clear of the axis labels on its left.
		tx, anchor, x0 := fitLabel(x, w, left, left+width)
		if x0 < lastEnd+8 {
			continue
		}
		dated = true
		lastEnd = x0 + w
		ticks = append(ticks, htmlTick{X: tx, Label: label, Anchor: anchor})
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
