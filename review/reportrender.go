package review

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/internal/safetext"
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
	return renderReport(r, renderLimits{rows: -1, files: -1, steps: -1, charts: -1, entries: -1})
}

// RenderReportFormat renders a report in a format; for github, cut to
// stay under GitHub's limit, saying what was cut.
func RenderReportFormat(r *Report, format string) string {
	full := RenderReport(r)
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
	head, base := r.Head.Checkpoint.Meta.CheckpointID, r.Base.Checkpoint.Meta.CheckpointID
	multi := len(r.Sessions) > 1
	headName, baseName := head, base
	if multi {
		headName, baseName = r.cpName(r.Head), r.cpName(r.Base)
	}
	switch {
	case r.Title != "":
		fmt.Fprintf(&b, "# %s\n\n", r.Title)
	case multi:
		fmt.Fprintf(&b, "# Sessions %s\n\n", r.sessionList())
	default:
		fmt.Fprintf(&b, "# Session %s: %s → %s\n\n", r.titled(r.Session), base, head)
	}
	if r.Goal != "" {
		fmt.Fprintf(&b, "**Goal**: %s\n\n", r.Goal)
	}
	n := len(r.Checkpoints)
	if n == 0 {
		fmt.Fprintf(&b, "No checkpoints after %s.\n", base)
		return b.String()
	}
	span := "at " + stamp(r.Checkpoints[0].CreatedAt)
	if n > 1 {
		span = "from " + stamp(r.Checkpoints[0].CreatedAt) + " to " + stamp(r.Checkpoints[n-1].CreatedAt)
	}
	who := "Session " + r.titled(r.Session)
	if multi {
		who = "Sessions " + r.sessionList()
	}
	counted := fmt.Sprintf("Changes are counted from %s, the session's first checkpoint.", base)
	switch {
	case r.Since:
		fmt.Fprintf(&b, "%s: %s after %s, %s. Changes are counted from %s.\n", who, plural(n, "checkpoint"), base, span, base)
		counted = ""
	case multi:
		fmt.Fprintf(&b, "%s: %s, %s.\n", who, plural(n, "checkpoint"), span)
		counted = fmt.Sprintf("Changes are counted from %s, the first checkpoint of all.", r.cpName(r.Base))
	default:
		fmt.Fprintf(&b, "%s: %s, %s.\n", who, plural(n, "checkpoint"), span)
	}
	if r.FilesBase != nil {
		counted = fmt.Sprintf("Files are counted from the merge base of HEAD and %s (%s).", code(r.FilesBase.Ref), r.FilesBase.Commit[:7])
	}
	if counted != "" {
		fmt.Fprintf(&b, "%s\n", counted)
	}

	if len(r.Checklist) > 0 {
		b.WriteString("\n## Checklist\n\n")
		done, doing, left := 0, 0, 0
		shown := take(len(r.Checklist), l.entries)
		for i, s := range r.Checklist {
			mark, note := " ", ""
			switch s.Status {
			case "done":
				mark = "x"
				done++
			case "in_progress":
				note = " — *in progress*"
				doing++
			case "failed":
				note = " — *failed*"
				if s.FailReason != "" {
					note += ": " + safetext.Line(s.FailReason)
				}
				left++
			default:
				left++
			}
			if i < shown {
				fmt.Fprintf(&b, "- [%s] %s. %s%s\n", mark, safetext.Line(s.Number), safetext.Line(s.Name), note)
			}
		}
		cuts.note(shown, len(r.Checklist), "checklist steps")
		fmt.Fprintf(&b, "\n%d done, %d in progress, %d left.\n", done, doing, left)
	}
	if len(r.Decisions) > 0 {
		b.WriteString("\n## Decisions\n\n")
		shown := take(len(r.Decisions), l.entries)
		for _, d := range r.Decisions[:shown] {
			fmt.Fprintf(&b, "- %s%s (%s)\n", removedPrefix(d.Change), DecisionText(d.Decision), atText(d.Change, d.At))
		}
		cuts.note(shown, len(r.Decisions), "decisions")
	}
	if len(r.Failures) > 0 {
		b.WriteString("\n## Failures\n\n")
		shown := take(len(r.Failures), l.entries)
		for _, f := range r.Failures[:shown] {
			fmt.Fprintf(&b, "- %s%s (%s)\n", removedPrefix(f.Change), FailureText(f.FailureEntry), atText(f.Change, f.At))
			if f.Lesson != "" && f.Change != ChangeRemoved {
				fmt.Fprintf(&b, "  - Lesson: %s\n", safetext.Line(f.Lesson))
			}
		}
		cuts.note(shown, len(r.Failures), "failures")
	}
	var closed []ReportOpenItem
	for _, o := range r.OpenItems {
		if o.Change == "closed" && !containsFold(r.Open, o.Text) {
			closed = append(closed, o)
		}
	}
	if len(r.Open) > 0 || len(closed) > 0 {
		b.WriteString("\n## Open items\n\n")
		shown := take(len(r.Open), l.entries)
		for _, o := range r.Open[:shown] {
			fmt.Fprintf(&b, "- [ ] %s\n", safetext.Line(o))
		}
		cuts.note(shown, len(r.Open), "open items")
		for _, o := range closed {
			fmt.Fprintf(&b, "- [x] %s (closed at %s)\n", safetext.Line(o.Text), o.At)
		}
	}
	if len(r.Files) > 0 {
		t := Totals(r.Files)
		fmt.Fprintf(&b, "\n## Files changed\n\n%s\n\n| file | change | + | - |\n| --- | --- | ---: | ---: |\n", StatSummary(t))
		shown := take(len(r.Files), l.files)
		fileRows(&b, r.Files[:shown])
		cuts.note(shown, len(r.Files), "files")
	}
	renderBranch(&b, r, l, &cuts)
	renderCharts(&b, r, l, &cuts)
	renderTable(&b, r, l, &cuts)
	if len(r.Steps) > 0 || r.Plan.FromDone != r.Plan.ToDone || r.Plan.FromTotal != r.Plan.ToTotal {
		b.WriteString("\n## Plan progress\n\n")
		fmt.Fprintf(&b, "%d of %d steps done at %s; %d of %d at %s.\n", r.Plan.FromDone, r.Plan.FromTotal, baseName, r.Plan.ToDone, r.Plan.ToTotal, headName)
		shown := take(len(r.Steps), l.steps)
		if shown > 0 {
			b.WriteString("\n")
		}
		for _, s := range r.Steps[:shown] {
			fmt.Fprintf(&b, "- %s: %s\n", s.At, StepChangeText(s.StepChange))
		}
		cuts.note(shown, len(r.Steps), "plan step changes")
	}
	if len(r.Task) > 0 {
		b.WriteString("\n## Task state\n\n")
		for _, t := range r.Task {
			fmt.Fprintf(&b, "- %s: %s → %s\n", t.Field, quoteOrNone(t.From), quoteOrNone(t.To))
		}
	}
	if l.cut && len(cuts) > 0 {
		fmt.Fprintf(&b, "\n> Cut to stay under GitHub's limit of %d characters: left out %s. `ctxgit report` prints it whole.\n",
			GitHubLimit, strings.Join(cuts, ", "))
	}
	return b.String()
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

// renderCharts draws each session's context usage as a Mermaid
// xychart-beta line, which GitHub renders: one point per checkpoint whose
// usage is known, in percent.
func renderCharts(b *strings.Builder, r *Report, l renderLimits, cuts *cutList) {
	type series struct {
		names  []string
		values []string
	}
	bySession := map[string]*series{}
	for _, c := range r.Checkpoints {
		if c.TokenUsage.Source == "" {
			continue
		}
		s := bySession[c.Session]
		if s == nil {
			s = &series{}
			bySession[c.Session] = s
		}
		s.names = append(s.names, fmt.Sprintf("%q", c.CheckpointID))
		s.values = append(s.values, fmt.Sprintf("%.0f", c.TokenUsage.Utilization*100))
	}
	var order []string
	for _, k := range r.Sessions {
		if bySession[k] != nil {
			order = append(order, k)
		}
	}
	if len(order) == 0 {
		return
	}
	shown := take(len(order), l.charts)
	cuts.note(shown, len(order), "context charts")
	if shown == 0 {
		return
	}
	b.WriteString("\n## Context usage\n")
	// The newest sessions' charts are kept when some are cut.
	for _, k := range order[len(order)-shown:] {
		s := bySession[k]
		fmt.Fprintf(b, "\n```mermaid\nxychart-beta\n    title \"Context used by session %s (%%)\"\n    x-axis [%s]\n    y-axis \"context used (%%)\" 0 --> 100\n    line [%s]\n```\n",
			mermaidText(r.short(k)), strings.Join(s.names, ", "), strings.Join(s.values, ", "))
	}
}

// mermaidText keeps a name from ending a Mermaid string.
func mermaidText(s string) string { return strings.NewReplacer(`"`, "'", "\n", " ").Replace(s) }

// tableRow is a row of the checkpoint table: a checkpoint, or a run of
// automatic checkpoints that changed nothing.
type tableRow struct {
	first, last ReportRow
	n           int
}

// collapsible: an automatic checkpoint (not manual, not the start) that
// changed nothing since the one before.
func collapsible(c ReportRow) bool {
	return !c.Start && c.Trigger != "manual" && rowChanges(c) == "no changes"
}

func renderTable(b *strings.Builder, r *Report, l renderLimits, cuts *cutList) {
	var rows []tableRow
	for _, c := range r.Checkpoints {
		if k := len(rows) - 1; k >= 0 && collapsible(c) && collapsible(rows[k].last) && rows[k].last.Session == c.Session {
			rows[k].last = c
			rows[k].n++
			continue
		}
		rows = append(rows, tableRow{first: c, last: c, n: 1})
	}
	multi := len(r.Sessions) > 1
	b.WriteString("\n## Checkpoints\n\n")
	if multi {
		b.WriteString("| session | checkpoint | time | trigger | context | plan | changes | topic |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	} else {
		b.WriteString("| checkpoint | time | trigger | context | plan | changes | topic |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	}
	// Cut from the middle: the start and the end tell the story.
	shown := take(len(rows), l.rows)
	keepHead := shown / 2
	keepTail := shown - keepHead
	for i, row := range rows {
		if i >= keepHead && i < len(rows)-keepTail {
			if i == keepHead {
				fmt.Fprintf(b, "| … %s … |\n", plural(len(rows)-shown, "row")+" cut")
			}
			continue
		}
		c := row.last
		plan := "—"
		if c.PlanTotal > 0 {
			plan = fmt.Sprintf("%d/%d done", c.PlanDone, c.PlanTotal)
		}
		id, when, trigger, changes, topic := c.CheckpointID, stamp(c.CreatedAt), cell(c.Trigger), rowChanges(c), cell(truncateRunes(c.Topic, 60))
		if row.n > 1 {
			id = row.first.CheckpointID + " – " + c.CheckpointID
			when = stamp(row.first.CreatedAt) + " – " + stamp(c.CreatedAt)
			trigger = fmt.Sprintf("%d automatic", row.n)
			changes = "no changes"
		}
		if multi {
			fmt.Fprintf(b, "| %s ", cell(r.short(c.Session)))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", id, when, trigger, usageText(c.TokenUsage), plan, changes, topic)
	}
	cuts.note(shown, len(rows), "checkpoint rows")
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

// renderBranch writes, with --base, the branch's commits and the checkpoints
// they link to, and the work not committed yet.
func renderBranch(b *strings.Builder, r *Report, l renderLimits, cuts *cutList) {
	if r.FilesBase == nil {
		return
	}
	if len(r.Commits) > 0 {
		b.WriteString("\n## Commits\n\n| commit | subject | checkpoint |\n| --- | --- | --- |\n")
		shown := take(len(r.Commits), l.files)
		for _, c := range r.Commits[:shown] {
			link := "—"
			if c.Link != nil {
				link = code(c.Link.String())
				if c.Title != "" {
					link += " " + safetext.Line(c.Title)
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s |\n", code(c.Commit[:7]), cellEscape(safetext.Line(c.Subject)), cellEscape(link))
		}
		cuts.note(shown, len(r.Commits), "commits")
	}
	if len(r.Uncommitted) > 0 {
		t := Totals(r.Uncommitted)
		fmt.Fprintf(b, "\n## Not committed\n\nIn the working tree, not in a commit of the branch (what `git status` shows: uncommitted and untracked files): %s\n\n| file | change | + | - |\n| --- | --- | ---: | ---: |\n", StatSummary(t))
		shown := take(len(r.Uncommitted), l.files)
		fileRows(b, r.Uncommitted[:shown])
		cuts.note(shown, len(r.Uncommitted), "uncommitted files")
	}
}
