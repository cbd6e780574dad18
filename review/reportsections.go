package review

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// A report's sections, in the order every rendering has them
// (docs/cli.md#report): Markdown, the GitHub form and the HTML page are
// rendered from one Report and carry the same sections, each left out
// when it has nothing to show.
const (
	SectionCommits      = "commits"
	SectionFiles        = "files"
	SectionUncommitted  = "uncommitted"
	SectionInstructions = "instructions"
	SectionChecklist    = "checklist"
	SectionDecisions    = "decisions"
	SectionFailures     = "failures"
	SectionOpenItems    = "open-items"
	SectionContext      = "context"
	SectionCheckpoints  = "checkpoints"
	SectionPlanProgress = "plan-progress"
	SectionTask         = "task"
)

// ReportSection is one section: its id (the HTML page's element id) and
// its heading.
type ReportSection struct {
	ID, Title string
}

// Sections are the report's sections that have something to show, in
// order.
func (r *Report) Sections() []ReportSection {
	var out []ReportSection
	add := func(ok bool, id, title string) {
		if ok {
			out = append(out, ReportSection{id, title})
		}
	}
	add(len(r.Commits) > 0, SectionCommits, "Commits")
	add(len(r.Files) > 0, SectionFiles, "Files changed")
	add(len(r.Uncommitted) > 0, SectionUncommitted, "Not committed")
	add(len(r.Instructions) > 0, SectionInstructions, "Instructions")
	add(len(r.Checklist) > 0, SectionChecklist, "Checklist")
	add(len(r.Decisions) > 0, SectionDecisions, "Decisions")
	add(len(r.Failures) > 0, SectionFailures, "Failures")
	add(len(r.Open) > 0 || len(r.closedItems()) > 0, SectionOpenItems, "Open items")
	add(len(r.Checkpoints) > 0, SectionContext, "Context usage")
	add(len(r.Checkpoints) > 0, SectionCheckpoints, "Checkpoints")
	add(len(r.Steps) > 0 || r.Plan.FromDone != r.Plan.ToDone || r.Plan.FromTotal != r.Plan.ToTotal, SectionPlanProgress, "Plan progress")
	add(len(r.Task) > 0, SectionTask, "Task state")
	return out
}

// closedItems are the open items closed in the range that are not open
// again at its head.
func (r *Report) closedItems() []ReportOpenItem {
	var closed []ReportOpenItem
	for _, o := range r.OpenItems {
		if o.Change == ItemClosed && !containsFold(r.Open, o.Text) {
			closed = append(closed, o)
		}
	}
	return closed
}

// failureCounts are how many failures are open and resolved (a removed
// entry is neither).
func (r *Report) failureCounts() (open, resolved int) {
	for _, f := range r.Failures {
		switch {
		case f.Change == ChangeRemoved:
		case f.IsResolved():
			resolved++
		default:
			open++
		}
	}
	return open, resolved
}

// A reportTime is a time as a report shows it: in the reader's zone, with
// the ISO stamp (UTC) to hover.
type reportTime struct {
	Text, ISO string
}

// at is t as the report's rows show it: the clock in the report's zone,
// with the date when the report spans more than one day there.
func (r *Report) at(t time.Time) reportTime {
	layout := "15:04"
	if !r.oneDay() {
		layout = "Jan 2 15:04"
	}
	return reportTime{Text: t.In(r.zone()).Format(layout), ISO: stamp(t)}
}

// oneDay reports whether the report's times fall on one day in its zone.
func (r *Report) oneDay() bool {
	if len(r.Checkpoints) == 0 {
		return true
	}
	day := func(t time.Time) string { return t.In(r.zone()).Format("2006-01-02") }
	first := day(r.Checkpoints[0].CreatedAt)
	for _, c := range r.Checkpoints[1:] {
		if day(c.CreatedAt) != first {
			return false
		}
	}
	for _, c := range r.Commits {
		if day(c.When) != first {
			return false
		}
	}
	return true
}

// zoneName names the report's zone: its abbreviation ("UTC", "CET"), or
// "UTC+05:30" where the zone has none.
func (r *Report) zoneName(t time.Time) string {
	name := t.In(r.zone()).Format("MST")
	if strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-") {
		return "UTC" + t.In(r.zone()).Format("-07:00")
	}
	return name
}

// spanSentence is "4 checkpoints, from 2026-11-22 10:00 to 10:44 UTC
// (44 min)" with each time as the renderer shows one (show).
func (r *Report) spanSentence(show func(reportTime) string) string {
	n := len(r.Checkpoints)
	first := r.Checkpoints[0].CreatedAt
	date := func(t time.Time) reportTime {
		return reportTime{Text: t.In(r.zone()).Format("2006-01-02 15:04"), ISO: stamp(t)}
	}
	if n == 1 {
		return fmt.Sprintf("1 checkpoint, at %s %s", show(date(first)), r.zoneName(first))
	}
	last := r.Checkpoints[n-1].CreatedAt
	end := r.at(last)
	if !r.oneDay() {
		end = date(last)
	}
	return fmt.Sprintf("%s, from %s to %s %s (%s)", plural(n, "checkpoint"), show(date(first)), show(end), r.zoneName(last), spanText(last.Sub(first)))
}

// resolvedText says when and by what a failure was resolved: "resolved
// 10:38, step 2 marked done".
func (r *Report) resolvedText(f ReportFailure, show func(reportTime) string) string {
	t := "resolved"
	if !f.ResolvedAt.IsZero() {
		t += " " + show(r.at(f.ResolvedAt))
	}
	if f.ResolvedBy != "" {
		t += ", " + f.ResolvedBy
	}
	return t
}

// failureHead is a failure's when, type and action: "10:17 ·
// Logic/Approach → Pivot", with the time as show renders one.
func (r *Report) failureHead(f spec.FailureEntry, show func(reportTime) string) string {
	var head []string
	if !f.When.IsZero() {
		head = append(head, show(r.at(f.When)))
	}
	if f.Type != "" || f.Action != "" {
		ta := string(f.Type)
		if f.Action != "" {
			ta = strings.TrimSpace(ta + " → " + string(f.Action))
		}
		head = append(head, ta)
	}
	return strings.Join(head, " · ")
}

// scopeSentence says what the report covers, as text with code spans
// (code renders a name).
func (r *Report) scopeSentence(code func(string) string) string {
	if r.Scope != ScopeBranch {
		s := "The session's work"
		if len(r.Sessions) > 1 {
			s = "The sessions' work"
		}
		if r.ScopeWhy != "" {
			return s + ", not a branch's: " + r.ScopeWhy + "."
		}
		return ""
	}
	branch := "HEAD"
	if r.Branch != "" {
		branch = "Branch " + code(r.Branch)
	}
	against := code(r.FilesBase.Ref)
	if r.BaseFound {
		against += ", the default branch"
	}
	s := fmt.Sprintf("%s against %s (merge base %s): %s, %s", branch, against, code(r.FilesBase.Commit[:7]),
		plural(len(r.Commits), "commit"), plural(len(r.Files), "file")+" changed")
	if n := len(r.Uncommitted); n > 0 {
		s += fmt.Sprintf(", %s not committed", plural(n, "file"))
	}
	return s + "."
}
