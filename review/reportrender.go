package review

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
)

// Report formats (docs/cli.md#report).
const (
	FormatMarkdown = "markdown"
	// FormatGitHub is markdown cut to fit one GitHub comment or pull
	// request description.
	FormatGitHub = "github"
)

// GitHubLimit is the most characters GitHub takes in a comment or a pull
// request description.
const GitHubLimit = 65536

// RenderReport renders a report as markdown for a pull request
// description. It depends only on the report: no clock, no environment.
func RenderReport(r *Report) string {
	return renderReport(r.forPeople(), wholeReport)
}

// wholeReport are the limits of a report printed whole.
var wholeReport = renderLimits{rows: -1, files: -1, steps: -1, charts: -1, entries: -1}

// RenderReportFormat renders a report in a format; for github, cut to
// stay under GitHub's limit, saying what was cut.
func RenderReportFormat(r *Report, format string) string {
	r = r.forPeople()
	full := renderReport(r, wholeReport)
	if format != FormatGitHub || len(full) <= githubBudget {
		return full
	}
	l := renderLimits{rows: len(r.Checkpoints), files: len(r.Files), steps: 0, charts: len(r.Sessions),
		entries: max(len(r.Decisions), len(r.Failures), len(r.OpenItems), len(r.Open), len(r.Checklist))}
	// Cut what a reviewer needs least first: the step timeline, then the
	// middle of the checkpoint table, files past the first ones, charts
	// of older sessions, then long lists.
	for range 200 {
		l.cut = true
		out := renderReport(r, l)
		if len(out) <= githubBudget {
			return out
		}
		switch {
		case l.rows > 8:
			l.rows /= 2
		case l.files > 50:
			l.files /= 2
		case l.charts > 1:
			l.charts = 1
		case l.entries > 20:
			l.entries /= 2
		case l.files > 0:
			l.files /= 2
		case l.rows > 0:
			l.rows /= 2
		case l.charts > 0:
			l.charts = 0
		case l.entries > 0:
			l.entries /= 2
		default:
			return truncateBytes(out, githubBudget)
		}
	}
	return truncateBytes(renderReport(r, l), githubBudget)
}

// githubBudget leaves room below GitHub's limit: it counts characters,
// and bytes are never fewer.
const githubBudget = GitHubLimit - 512

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !isRuneStart(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isRuneStart(b byte) bool { return b < 0x80 || b >= 0xC0 }

// renderLimits bound the long parts of a report; -1 is no bound.
type renderLimits struct {
	rows, files, steps, charts, entries int
	cut                                 bool // say what was cut
}

// cutList says what a cut report left out: "3 of 10 files".
type cutList []string

// note records that shown of all items of a kind were kept, when some
// were not.
func (c *cutList) note(shown, all int, what string) {
	if shown < all {
		*c = append(*c, fmt.Sprintf("%d of %d %s", all-shown, all, what))
	}
}

func take(n, limit int) int {
	if limit < 0 || limit > n {
		return n
	}
	return limit
}

func renderReport(r *Report, l renderLimits) string {
	var b strings.Builder
	var cuts cutList
	m := &mdReport{b: &b, r: r, l: l, cuts: &cuts}
	m.header()
	if len(r.Checkpoints) == 0 && r.Scope != ScopeBranch {
		fmt.Fprintf(&b, "No checkpoints after %s.\n", r.Base.Checkpoint.Meta.CheckpointID)
		return b.String()
	}
	for _, sec := range r.Sections() {
		m.section(sec)
	}
	if l.cut && len(cuts) > 0 {
		fmt.Fprintf(&b, "\n> Cut to stay under GitHub's limit of %d characters: left out %s. `ctxgit report` prints it whole.\n",
			GitHubLimit, strings.Join(cuts, ", "))
	}
	return b.String()
}

// mdReport writes a report as Markdown for a pull request.
type mdReport struct {
	b    *strings.Builder
	r    *Report
	l    renderLimits
	cuts *cutList
}

func (m *mdReport) printf(format string, a ...any) { fmt.Fprintf(m.b, format, a...) }

// when is a time with its ISO stamp to hover, which GitHub keeps (a
// <time> element with a title); elsewhere it reads as the clock time.
func (m *mdReport) when(t reportTime) string {
	return `<time title="` + t.ISO + `">` + t.Text + `</time>`
}

// header writes the title, the goal and what the report covers.
func (m *mdReport) header() {
	r := m.r
	multi := len(r.Sessions) > 1
	switch {
	case r.Title != "":
		m.printf("# %s\n\n", r.Title)
	case multi:
		m.printf("# Sessions %s\n\n", r.sessionList())
	case len(r.Checkpoints) == 0 || r.Since:
		m.printf("# Session %s: %s → %s\n\n", r.titled(r.Session), r.Base.Checkpoint.Meta.CheckpointID, r.Head.Checkpoint.Meta.CheckpointID)
	default:
		m.printf("# Session %s\n\n", r.titled(r.Session))
	}
	if r.Goal != "" {
		m.printf("**Goal**: %s\n\n", r.Goal)
	}
	if r.Scope == ScopeBranch {
		m.printf("%s\n", r.scopeSentence(code))
	}
	if len(r.Checkpoints) == 0 {
		if r.Scope == ScopeBranch {
			m.printf("No checkpoints after %s.\n", r.Base.Checkpoint.Meta.CheckpointID)
		}
		return
	}
	who := "Session " + r.titled(r.Session)
	if multi {
		who = "Sessions " + r.sessionList()
	}
	base := r.Base.Checkpoint.Meta.CheckpointID
	switch {
	case r.Since:
		m.printf("%s: %s after %s, %s. Changes are counted from %s.\n", who, plural(len(r.Checkpoints), "checkpoint"), base,
			strings.TrimPrefix(r.spanSentence(m.when), plural(len(r.Checkpoints), "checkpoint")+", "), base)
	default:
		m.printf("%s: %s.\n", who, r.spanSentence(m.when))
	}
	if r.Scope != ScopeBranch && !r.Since {
		if multi {
			m.printf("Changes are counted from %s, the first checkpoint of all.\n", r.cpName(r.Base))
		} else {
			m.printf("Changes are counted from %s, the session's first checkpoint.\n", base)
		}
		if why := r.scopeSentence(code); why != "" {
			m.printf("%s\n", why)
		}
	}
}

func (m *mdReport) section(sec ReportSection) {
	r, l := m.r, m.l
	switch sec.ID {
	case SectionContext:
		m.context(sec) // writes its own heading: all its charts may be cut
		return
	}
	m.printf("\n## %s\n\n", sec.Title)
	switch sec.ID {
	case SectionCommits:
		m.printf("| commit | time | subject | checkpoint |\n| --- | --- | --- | --- |\n")
		shown := take(len(r.Commits), l.files)
		for _, c := range r.Commits[:shown] {
			m.printf("| %s | %s | %s | %s |\n", code(c.Commit[:7]), m.when(r.at(c.When)), cellEscape(safetext.Line(c.Subject)), cellEscape(commitLink(c, code)))
		}
		m.cuts.note(shown, len(r.Commits), "commits")
	case SectionFiles:
		m.printf("%s\n\n| file | change | + | - |\n| --- | --- | ---: | ---: |\n", StatSummary(Totals(r.Files)))
		shown := take(len(r.Files), l.files)
		fileRows(m.b, r.Files[:shown])
		m.cuts.note(shown, len(r.Files), "files")
	case SectionUncommitted:
		m.printf("In the working tree, not in a commit of the branch (what `git status` shows: uncommitted and untracked files): %s\n\n| file | change | + | - |\n| --- | --- | ---: | ---: |\n", StatSummary(Totals(r.Uncommitted)))
		shown := take(len(r.Uncommitted), l.files)
		fileRows(m.b, r.Uncommitted[:shown])
		m.cuts.note(shown, len(r.Uncommitted), "uncommitted files")
	case SectionInstructions:
		m.printf("The user's instructions, in order, as the checkpoints recorded them:\n\n")
		shown := take(len(r.Instructions), l.entries)
		for i, in := range r.Instructions[:shown] {
			m.printf("%d. %s (recorded by %s at %s)\n", i+1, safetext.Line(in.Text), in.At, m.when(r.at(in.When)))
		}
		m.cuts.note(shown, len(r.Instructions), "instructions")
	case SectionChecklist:
		done, doing, left := 0, 0, 0
		shown := take(len(r.Checklist), l.entries)
		for i, s := range r.Checklist {
			mark, note := " ", ""
			switch s.Status {
			case spec.StepDone:
				mark = "x"
				done++
			case spec.StepInProgress:
				note = " — *in progress*"
				doing++
			case spec.StepFailed:
				note = " — *failed*"
				if s.FailReason != "" {
					note += ": " + safetext.Line(s.FailReason)
				}
				left++
			default:
				left++
			}
			if i < shown {
				m.printf("- [%s] %s. %s%s\n", mark, safetext.Line(s.Number), safetext.Line(s.Name), note)
			}
		}
		m.cuts.note(shown, len(r.Checklist), "checklist steps")
		m.printf("\n%d done, %d in progress, %d left.\n", done, doing, left)
	case SectionDecisions:
		shown := take(len(r.Decisions), l.entries)
		for _, d := range r.Decisions[:shown] {
			m.printf("- %s%s (%s)\n", removedPrefix(d.Change), DecisionText(d.Decision), m.atWhen(d.Change, d.At, d.When))
		}
		m.cuts.note(shown, len(r.Decisions), "decisions")
	case SectionFailures:
		open, resolved := r.failureCounts()
		m.printf("%d open, %d resolved.\n\n", open, resolved)
		shown := take(len(r.Failures), l.entries)
		for _, f := range r.Failures[:shown] {
			state := "**Open**"
			switch {
			case f.Change == ChangeRemoved:
				state = "removed"
			case f.IsResolved():
				state = "**" + capitalize(r.resolvedText(f, m.when)) + "**"
			}
			text := safetext.Line(f.Summary)
			if head := r.failureHead(f.FailureEntry, m.when); head != "" {
				text = head + ": " + text
			}
			m.printf("- %s · %s (%s)\n", state, text, atText(f.Change, f.At))
			if f.Lesson != "" && f.Change != ChangeRemoved {
				m.printf("  - Lesson: %s\n", safetext.Line(f.Lesson))
			}
		}
		m.cuts.note(shown, len(r.Failures), "failures")
	case SectionOpenItems:
		shown := take(len(r.Open), l.entries)
		for _, o := range r.Open[:shown] {
			m.printf("- [ ] %s\n", safetext.Line(o))
		}
		m.cuts.note(shown, len(r.Open), "open items")
		for _, o := range r.closedItems() {
			m.printf("- [x] %s (closed at %s)\n", safetext.Line(o.Text), o.At)
		}
	case SectionCheckpoints:
		m.checkpoints()
	case SectionPlanProgress:
		headName, baseName := r.Head.Checkpoint.Meta.CheckpointID, r.Base.Checkpoint.Meta.CheckpointID
		if len(r.Sessions) > 1 {
			headName, baseName = r.cpName(r.Head), r.cpName(r.Base)
		}
		m.printf("%d of %d steps done at %s; %d of %d at %s.\n", r.Plan.FromDone, r.Plan.FromTotal, baseName, r.Plan.ToDone, r.Plan.ToTotal, headName)
		shown := take(len(r.Steps), l.steps)
		if shown > 0 {
			m.printf("\n")
		}
		for _, s := range r.Steps[:shown] {
			m.printf("- %s: %s\n", s.At, StepChangeText(s.StepChange))
		}
		m.cuts.note(shown, len(r.Steps), "plan step changes")
	case SectionTask:
		for _, t := range r.Task {
			m.printf("- %s: %s → %s\n", t.Field, quoteOrNone(t.From), quoteOrNone(t.To))
		}
	}
}

// atWhen names where a decision shows first, with the time it was
// recorded when it has one.
func (m *mdReport) atWhen(change, at string, when time.Time) string {
	s := atText(change, at)
	if !when.IsZero() {
		s += ", " + m.when(m.r.at(when))
	}
	return s
}

// commitLink is a commit's checkpoint: the trailer's name and the
// session's title; "—" without one.
func commitLink(c ReportCommit, code func(string) string) string {
	if c.Link == nil {
		return "—"
	}
	link := code(c.Link.String())
	if c.Title != "" {
		link += " " + safetext.Line(c.Title)
	}
	return link
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// atText names where a decision or failure shows first; one recorded
// before the first checkpoint says so.
func atText(change, at string) string {
	if change == ChangeExisting {
		return "before " + at
	}
	return at
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if fold(x) == fold(s) {
			return true
		}
	}
	return false
}

// context writes each session's context as a Mermaid xychart-beta line,
// which GitHub renders. Mermaid spaces a line's values evenly, so the
// step line is sampled at even times across the span (chartSamples): a
// compaction drops within one sample.
func (m *mdReport) context(sec ReportSection) {
	r := m.r
	lines := r.contextLines()
	shown := take(len(lines), m.l.charts)
	m.cuts.note(shown, len(lines), "context charts")
	if len(lines) > 0 && shown == 0 {
		return
	}
	m.printf("\n## %s\n\n", sec.Title)
	if len(lines) == 0 {
		m.printf("No context reading was recorded.\n")
		return
	}
	m.printf("%s, each held until the next; %s.\n", plural(len(r.Readings), "reading"), compactionWords(r))
	// The newest sessions' charts are kept when some are cut.
	for _, line := range lines[len(lines)-shown:] {
		first, last := line.span()
		n := chartSamples(last.Sub(first))
		values := make([]string, n)
		prev := first.Add(-time.Nanosecond)
		for i := range n {
			t := first
			if n > 1 {
				t = first.Add(last.Sub(first) * time.Duration(i) / time.Duration(n-1))
			}
			values[i] = "0"
			for _, p := range line.Pieces {
				if v, ok := sampleAt(p, prev, t); ok {
					values[i] = fmt.Sprintf("%.0f", math.Min(v, 1)*100)
				}
			}
			prev = t
		}
		m.printf("\n```mermaid\nxychart-beta\n    title \"Context used by session %s (%%)\"\n    x-axis \"minutes from %s %s\" 0 --> %d\n    y-axis \"context used (%%)\" 0 --> 100\n    line [%s]\n```\n",
			mermaidText(r.short(line.Session)), r.at(first).Text, r.zoneName(first), int(last.Sub(first).Minutes()), strings.Join(values, ", "))
	}
}

// chartSamples is how many points a Mermaid line has over span: one a
// minute, between 2 and 120.
func chartSamples(span time.Duration) int {
	return min(max(int(span.Minutes())+1, 2), 120)
}

// compactionWords counts the compactions: "no compaction", "1 compaction".
func compactionWords(r *Report) string {
	n := 0
	for _, c := range r.Checkpoints {
		if c.Trigger == spec.TriggerCompaction {
			n++
		}
	}
	switch n {
	case 0:
		return "no compaction"
	case 1:
		return "1 compaction, a drop at its instant"
	}
	return plural(n, "compaction") + ", each a drop at its instant"
}

// mermaidText keeps a name from ending a Mermaid string.
func mermaidText(s string) string { return strings.NewReplacer(`"`, "'", "\n", " ").Replace(s) }

// tableRow is a row of the checkpoint table: a checkpoint, or a run of
// automatic checkpoints that changed nothing.
type tableRow struct {
	first, last ReportRow
	n           int
}

// collapsible: an automatic checkpoint (not manual, not the start, not a
// compaction, which the chart marks) that changed nothing since the one
// before.
func collapsible(c ReportRow) bool {
	return !c.Start && c.Trigger != spec.TriggerManual && c.Trigger != spec.TriggerCompaction && rowChanges(c) == "no changes"
}

// tableRows are the checkpoint table's rows: a run of automatic
// checkpoints of one session that changed nothing is one row.
func tableRows(cps []ReportRow) []tableRow {
	var rows []tableRow
	for _, c := range cps {
		if k := len(rows) - 1; k >= 0 && collapsible(c) && collapsible(rows[k].last) && rows[k].last.Session == c.Session {
			rows[k].last = c
			rows[k].n++
			continue
		}
		rows = append(rows, tableRow{first: c, last: c, n: 1})
	}
	return rows
}

func (m *mdReport) checkpoints() {
	r, l := m.r, m.l
	rows := tableRows(r.Checkpoints)
	multi := len(r.Sessions) > 1
	if multi {
		m.printf("| session | checkpoint | time | trigger | context | plan | changes | topic |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	} else {
		m.printf("| checkpoint | time | trigger | context | plan | changes | topic |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	}
	// Cut from the middle: the start and the end tell the story.
	shown := take(len(rows), l.rows)
	keepHead := shown / 2
	keepTail := shown - keepHead
	for i, row := range rows {
		if i >= keepHead && i < len(rows)-keepTail {
			if i == keepHead {
				m.printf("| … %s … |\n", plural(len(rows)-shown, "row")+" cut")
			}
			continue
		}
		c := row.last
		plan := "—"
		if c.PlanTotal > 0 {
			plan = fmt.Sprintf("%d/%d done", c.PlanDone, c.PlanTotal)
		}
		id, when, trigger, changes, topic := c.CheckpointID, m.when(r.at(c.CreatedAt)), cell(c.Trigger), rowChanges(c), cell(truncateRunes(c.Topic, 60))
		if row.n > 1 {
			id = row.first.CheckpointID + " – " + c.CheckpointID
			when = m.when(r.at(row.first.CreatedAt)) + " – " + when
			trigger = fmt.Sprintf("%d automatic", row.n)
			changes = "no changes"
		}
		if multi {
			m.printf("| %s ", cell(r.short(c.Session)))
		}
		m.printf("| %s | %s | %s | %s | %s | %s | %s |\n", id, when, trigger, usageText(c.TokenUsage), plan, changes, topic)
	}
	m.cuts.note(shown, len(rows), "checkpoint rows")
}

// fileRows are a files table's rows.
func fileRows(b *strings.Builder, files []FileDiff) {
	for _, f := range files {
		name := cellEscape(code(safetext.Path(f.Path)))
		if f.From != "" {
			name += " (from " + cellEscape(code(safetext.Path(f.From))) + ")"
		}
		plus, minus := fmt.Sprint(f.Added), fmt.Sprint(f.Removed)
		switch f.Lines {
		case LinesBinary:
			plus, minus = "binary", ""
		case LinesTooLarge:
			plus, minus = "too large to count", ""
		case LinesSubmodule:
			plus, minus = "submodule", ""
		case LinesEstimated:
			plus, minus = "~"+plus, "~"+minus
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name, statusWord[f.Status], plus, minus)
	}
}
