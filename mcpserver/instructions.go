package mcpserver

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// Instructions is the server's onboarding card, what the initialize
// answer gives as instructions: the card `ctxgit init --host` prints and
// the hooks show, with the tools in place of the commands. Every tool it
// names is the server's and works as written (TestInstructionsTeachTools);
// it stays within the onboarding card's bound.
func Instructions(w *workspace.Workspace) string {
	p := w.Config.Paths
	var b strings.Builder
	b.WriteString("# ctxgit keeps this workspace's working state across compaction\n")
	if taskstate.HasPlan(w) {
		fmt.Fprintf(&b, "- Plan: %s (tool `plan_mark` {step, status})\n", p.Plan)
	} else {
		fmt.Fprintf(&b, "- Plan: none yet (one in %s, numbered steps under `## Plan:`, is kept too)\n", p.Plan)
	}
	fmt.Fprintf(&b, "- Decisions: %s (tool `decide` {text, why})\n", p.Decisions)
	fmt.Fprintf(&b, "- Failure log: %s (tool `fail` {text}; once fixed, tool `fail_resolved`)\n", p.FailureLog)
	fmt.Fprintf(&b, "- Next action: %s (tool `state_set` {field: next_action, value})\n", p.TaskState)
	b.WriteString("What is saved there is restored after a compaction; the tool `recover` shows it again.\n")
	card := b.String()
	if len([]rune(card)) > taskstate.MaxOnboardingChars {
		card = "# ctxgit keeps this workspace's working state across compaction\n" +
			"Tools: `decide` {text, why}, `fail` {text}, `state_set` {field: next_action, value}, `recover`.\n" +
			"What is saved with them is restored after a compaction.\n"
	}
	return card
}
