package taskstate

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/workspace"
)

// MaxOnboardingChars bounds the onboarding card (docs/cli.md#hook).
const MaxOnboardingChars = 600

// OnboardingCard is what a session's first start tells the agent, as
// facts: where its working state lives and the four commands that keep
// it. `ctxgit init --host` prints the same card.
func OnboardingCard(w *workspace.Workspace) string {
	p := w.Config.Paths
	var b strings.Builder
	b.WriteString("# ctxgit keeps this workspace's working state across compaction\n")
	fmt.Fprintf(&b, "- Plan: %s (`ctxgit plan mark N done`)\n", p.Plan)
	fmt.Fprintf(&b, "- Decisions: %s (`ctxgit decide \"…\" --why \"…\"`)\n", p.Decisions)
	fmt.Fprintf(&b, "- Failure log: %s (`ctxgit fail \"…\"`)\n", p.FailureLog)
	fmt.Fprintf(&b, "- Next action: %s (`ctxgit state set next_action \"…\"`)\n", p.TaskState)
	b.WriteString("What is saved there is restored after a compaction.\n")
	card := b.String()
	if runes(card) > MaxOnboardingChars {
		// Configured paths long enough to overflow: the commands matter
		// more than where the files are.
		card = "# ctxgit keeps this workspace's working state across compaction\n" +
			"Commands: `ctxgit plan mark N done`, `ctxgit decide \"…\" --why \"…\"`, `ctxgit fail \"…\"`, `ctxgit state set next_action \"…\"`.\n" +
			"What is saved with them is restored after a compaction.\n"
	}
	return card
}
