package workspace

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
)

// ResumeDelta says what a resumed conversation does not yet hold: the
// changes to the working state since held, the newest checkpoint the
// conversation already holds (it was taken while the conversation ran, or
// delivered into it), and a newer checkpoint of another session. It
// returns "" when nothing changed: the host replays the conversation
// whole, so a block repeating what it holds would only repeat it, and one
// older than a block already delivered would contradict it
// (docs/cli.md#hook).
func ResumeDelta(w *Workspace, held *Resolved, title string) (string, error) {
	cp := held.Checkpoint
	var lines []string
	st := w.ReadState()
	lines = append(lines, planDelta(cp, st.Plan)...)
	lines = append(lines, decisionsDelta(cp, st.Decisions)...)
	if n := len(st.Failures); n > cp.Metacog.FailureCount {
		lines = append(lines, fmt.Sprintf("Failure logged (%d new): %s", n-cp.Metacog.FailureCount,
			truncateRunes(oneLine(st.Failures[n-1].Summary), decisionWhatCap)))
	}
	if task, err := w.ReadTaskState(); err == nil && task.Exists && task.State != nil {
		was := ""
		if cp.Task != nil {
			was = cp.Task.NextAction
		}
		if next := task.State.NextAction; next != "" && next != was {
			lines = append(lines, "Next action: "+truncateRunes(oneLine(next), decisionWhatCap))
		}
	}
	newest, err := w.Newest()
	if err != nil {
		return "", err
	}
	if newest != nil && newest.Session != held.Session && newest.Checkpoint.Meta.CreatedAt.After(cp.Meta.CreatedAt) {
		name := w.ShortSession(newest.Session) + ":" + newest.Checkpoint.Meta.CheckpointID
		lines = append(lines, "Another session checkpointed since: "+oneLine(name)+", "+
			newest.Checkpoint.Meta.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")+" (`ctxgit recover "+name+"` shows it)")
	}
	if len(lines) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(title + " (since you left)\n\n")
	fmt.Fprintf(&b, "This conversation holds checkpoint %s (%s); since then:\n", oneLine(w.ShortSession(held.Session)+":"+cp.Meta.CheckpointID),
		cp.Meta.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
	return fitBudget(b.String(), "", w.Config.BudgetChars()), nil
}

// maxDeltaDecisions bounds the decisions a delta lists, newest last.
const maxDeltaDecisions = 5

// decisionsDelta lists the decisions logged after those cp holds: the
// log's tail after the newest one cp knows (a checkpoint keeps only the
// newest caps.decisions, so older ones are not new for being absent).
func decisionsDelta(cp *spec.Checkpoint, ds []spec.Decision) []string {
	known := map[string]bool{}
	for _, d := range cp.Decisions {
		known[string(d.What)] = true
	}
	from := len(ds)
	for from > 0 && !known[ds[from-1].What] {
		from--
	}
	added := ds[from:]
	var lines []string
	if len(added) > maxDeltaDecisions {
		lines = append(lines, fmt.Sprintf("%d decisions added; the newest %d:", len(added), maxDeltaDecisions))
		added = added[len(added)-maxDeltaDecisions:]
	}
	for _, d := range added {
		lines = append(lines, "Decision added: "+decisionLine(spec.DecisionRef{ID: d.ID, What: spec.Text(d.What), Why: spec.Text(d.Why)}))
	}
	return lines
}

// planDelta is the plan's change since cp: its current step and progress.
func planDelta(cp *spec.Checkpoint, p *spec.Plan) []string {
	switch {
	case p == nil && cp.Plan.Source == "":
		return nil
	case p == nil:
		return []string{"Plan: " + oneLine(cp.Plan.Source) + " is gone"}
	}
	cur := ""
	if s := p.Current(); s != nil {
		cur = s.Title()
	}
	done, total := p.Progress()
	if cur == string(cp.Plan.CurrentStep) && done == cp.Plan.Done && total == cp.Plan.Total {
		return nil
	}
	line := fmt.Sprintf("Plan: %d of %d steps done", done, total)
	if cur != "" {
		line += ", current step " + quoteInline(cur)
	}
	if was := string(cp.Plan.CurrentStep); was != cur && was != "" {
		line += " (was " + quoteInline(was) + ")"
	}
	return []string{line}
}

// quoteInline shows untrusted text on one line, shortened, in quotes.
func quoteInline(s string) string {
	return "\"" + truncateRunes(oneLine(s), decisionWhyCap) + "\""
}
