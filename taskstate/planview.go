package taskstate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// stepStatuses are the words `plan mark` and the plan_mark tool take.
var stepStatuses = map[string]spec.StepStatus{
	"done": spec.StepDone, "in-progress": spec.StepInProgress, "in_progress": spec.StepInProgress,
	"pending": spec.StepPending, "failed": spec.StepFailed,
}

// ParseStepStatus reads the status word of `ctxgit plan mark STEP STATUS`
// (docs/cli.md#plan), and checks that a failed step has its reason. The
// command line and the MCP server share it, so both refuse the same.
func ParseStepStatus(word, reason string) (spec.StepStatus, error) {
	status, ok := stepStatuses[word]
	if !ok {
		return "", spec.Usage("status %q: want done, in-progress, pending or failed", word)
	}
	if status == spec.StepFailed && strings.TrimSpace(reason) == "" {
		return "", spec.Usage("marking a step failed needs --reason")
	}
	return status, nil
}

// ReadPlan reads the plan for `ctxgit plan` and the MCP plan tool: the
// parsed plan and its path, an error when it does not parse, not found
// when there is none.
func ReadPlan(w *workspace.Workspace) (*spec.Plan, string, error) {
	st := w.ReadState()
	for _, p := range st.Problems {
		if fe := (*spec.FileError)(nil); errors.As(p, &fe) && fe.Path == st.PlanPath {
			return nil, st.PlanPath, p
		}
	}
	if st.Plan == nil {
		return nil, st.PlanPath, spec.NotFound("%s does not exist", st.PlanPath)
	}
	return st.Plan, st.PlanPath, nil
}

var statusMarks = map[spec.StepStatus]string{
	spec.StepDone: "[x]", spec.StepInProgress: "[>]", spec.StepPending: "[ ]", spec.StepFailed: "[!]",
}

// RenderPlan is the plan as `ctxgit plan` prints it: title, goal,
// progress, one line a step with the current one marked →, open items;
// every text folded to one line (SPEC §10.1).
func RenderPlan(p *spec.Plan) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	if p.Title != "" {
		fmt.Fprintf(&b, "Plan: %s\n", oneLine(p.Title))
	}
	if p.Goal != "" {
		fmt.Fprintf(&b, "Goal: %s\n", oneLine(p.Goal))
	}
	if p.DoneWhen != "" {
		fmt.Fprintf(&b, "Done when: %s\n", oneLine(p.DoneWhen))
	}
	done, total := p.Progress()
	fmt.Fprintf(&b, "Steps: %d of %d done\n", done, total)
	cur := p.Current()
	for _, s := range p.Steps {
		marker := "  "
		if cur != nil && s.Number == cur.Number {
			marker = "→ "
		}
		line := marker + statusMarks[s.Status] + " " + oneLine(s.Title())
		if s.FailReason != "" {
			line += " (failed: " + oneLine(s.FailReason) + ")"
		}
		if s.PivotTo != "" {
			line += " → step " + oneLine(s.PivotTo)
		}
		b.WriteString(line + "\n")
	}
	for _, o := range p.OpenItems {
		fmt.Fprintf(&b, "Open: %s\n", oneLine(o))
	}
	return b.String()
}
