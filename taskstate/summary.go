package taskstate

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// The summary's sections, in order: every one the summary rule requires
// (docs/cli.md#summary). Scalars are one paragraph, lists one item a line.
var summarySections = []string{"Goal", "Current phase", "Completed steps", "Failed attempts", "Decisions",
	"Files touched", "Important tool outputs", "Blockers", "Next action", "Invariants", "Constraints"}

// writtenPrefix opens the line that dates a summary.
const writtenPrefix = "Written: "

func latestSummaryPath(w *workspace.Workspace) string {
	return path.Join(w.Config.Paths.Summaries, spec.LatestSummaryName)
}

// WriteSummary renders the summary and writes it to a timestamped file and
// latest-summary.md, under the workspace lock.
func WriteSummary(w *workspace.Workspace, session string) (string, error) {
	lock, err := w.Lock()
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	return writeSummary(w, session)
}

func writeSummary(w *workspace.Workspace, session string) (string, error) {
	task, err := w.ReadTaskState()
	if err != nil {
		return "", err
	}
	text := renderSummary(w, session, task)
	stamped := path.Join(w.Config.Paths.Summaries, w.Now().Format("20060102T150405Z")+".md")
	for _, p := range []string{stamped, latestSummaryPath(w)} {
		if err := w.WriteStateFile(p, []byte(text)); err != nil {
			return "", err
		}
	}
	return latestSummaryPath(w), nil
}

// renderSummary is deterministic: the same state files and clock give the
// same bytes.
func renderSummary(w *workspace.Workspace, session string, task *workspace.TaskRead) string {
	st := w.ReadState()
	ts := task.State
	if ts == nil {
		ts = &spec.TaskState{}
	}
	plan := st.Plan
	if plan == nil {
		plan = &spec.Plan{}
	}
	goal := ts.Goal
	if goal == "" {
		goal = plan.Goal
	}
	completed := append([]string{}, ts.CompletedSteps...)
	for _, s := range plan.Steps {
		if s.Status == spec.StepDone {
			completed = append(completed, "plan: "+s.Title())
		}
	}
	failed := append([]string{}, ts.FailedAttempts...)
	for _, f := range st.Failures {
		failed = append(failed, "failure log: "+f.Summary)
	}
	var decisions []string
	for _, d := range ts.Decisions {
		decisions = append(decisions, strings.TrimSpace(d.Decision+" — "+d.Reason))
	}
	for _, d := range st.Decisions {
		decisions = append(decisions, d.What)
	}
	var files []string
	for _, a := range ts.Artifacts {
		files = append(files, a.Path)
	}
	if _, cp, err := sessionHead(w, session); err == nil && cp != nil {
		for _, f := range cp.Resources.SinceSession {
			files = append(files, f.Path)
		}
		files = append(files, cp.Resources.FilesModified...)
	}
	outputs := append([]string{}, ts.ImportantFacts...)
	if a := ts.LastAction; a != nil {
		outputs = append(outputs, fmt.Sprintf("last action (%s, %s): %s", a.Outcome, a.Timestamp, a.Summary))
	}
	blockers := append(append([]string{}, ts.Blockers...), ts.OpenIssues...)

	var b strings.Builder
	b.WriteString("# Task summary\n\n")
	fmt.Fprintf(&b, "Task: %s · session %s · state updated %s\n", orNone(oneLine(ts.TaskID)), session, orNone(oneLine(ts.UpdatedAt)))
	b.WriteString(writtenPrefix + w.Now().Format(time.RFC3339) + "\n")
	if !task.Exists {
		fmt.Fprintf(&b, "No task state (%s): sections below come from the plan and logs only.\n", task.Path)
	}
	lists := map[string][]string{
		"Completed steps": completed, "Failed attempts": failed, "Decisions": decisions,
		"Files touched": workspace.Dedupe(files), "Important tool outputs": outputs, "Blockers": blockers,
		"Invariants": ts.Invariants, "Constraints": ts.Constraints,
	}
	scalars := map[string]string{"Goal": goal, "Current phase": ts.CurrentPhase, "Next action": ts.NextAction}
	for _, sec := range summarySections {
		fmt.Fprintf(&b, "\n## %s\n", sec)
		if v, ok := scalars[sec]; ok {
			// Quoted, so a goal cannot pass for a heading or a signal.
			b.WriteString("> " + orNone(oneLine(v)) + "\n")
			continue
		}
		items := lists[sec]
		if len(items) == 0 {
			b.WriteString("- (none)\n")
		}
		for _, it := range items {
			b.WriteString("- " + oneLine(it) + "\n")
		}
	}
	return b.String()
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}

// readSummary returns the latest summary's written time and its scalar
// sections; ok is false when there is none or it is not in this form.
func readSummary(w *workspace.Workspace) (written time.Time, sections map[string]string, ok bool) {
	data, err := w.ReadStateFile(latestSummaryPath(w), workspace.MaxStateFile)
	if err != nil {
		return time.Time{}, nil, false
	}
	sections = map[string]string{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, writtenPrefix) && cur == "":
			written, _ = time.Parse(time.RFC3339, strings.TrimPrefix(line, writtenPrefix))
		case strings.HasPrefix(line, "## "):
			cur = strings.TrimPrefix(line, "## ")
		case cur != "" && strings.TrimSpace(line) != "":
			// Scalars are quoted; a summary written before they were reads too.
			line = strings.TrimPrefix(line, "> ")
			sections[cur] = strings.TrimSpace(sections[cur] + " " + line)
		}
	}
	return written, sections, !written.IsZero()
}

// summaryWrittenSince reports whether the latest summary was written at or
// after t, by the time recorded in it (a checkout resets mtimes).
func summaryWrittenSince(w *workspace.Workspace, t time.Time) bool {
	written, _, ok := readSummary(w)
	return ok && !written.Before(t)
}

// summaryConflict names the first of goal, current phase and next action
// on which the latest summary disagrees with the task state, or "".
func summaryConflict(w *workspace.Workspace, ts *spec.TaskState) string {
	_, sections, ok := readSummary(w)
	if !ok {
		return "not a ctxgit summary"
	}
	for _, c := range []struct{ sec, want string }{
		{"Goal", ts.Goal}, {"Current phase", ts.CurrentPhase}, {"Next action", ts.NextAction},
	} {
		if sections[c.sec] != orNone(oneLine(c.want)) {
			return strings.ToLower(c.sec)
		}
	}
	return ""
}

// sessionHead reads a session's newest checkpoint, if any.
func sessionHead(w *workspace.Workspace, session string) (string, *spec.Checkpoint, error) {
	store, err := w.ReadStore()
	if err != nil || store == nil {
		return "", nil, err
	}
	id, cp, err := w.SessionHead(store, session)
	if err != nil || cp == nil {
		return "", nil, err
	}
	return id.String(), cp, nil
}
