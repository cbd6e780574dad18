package taskstate

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/workspace"
)

// MaxOnboardingChars bounds the onboarding card (docs/cli.md#hook).
const MaxOnboardingChars = 600

// OnboardingCard is what a session's first start tells the agent, as
// facts: where its working state lives and the commands that keep it.
// `ctxgit init --host` prints the same card. Every command it names
// works as written in the workspace it is shown in (TestTaughtCommands):
// `plan mark` only where there is a plan to mark.
func OnboardingCard(w *workspace.Workspace) string {
	p := w.Config.Paths
	hasPlan := HasPlan(w)
	var b strings.Builder
	b.WriteString("# ctxgit keeps this workspace's working state across compaction\n")
	if hasPlan {
		fmt.Fprintf(&b, "- Plan: %s (`ctxgit plan mark N done`)\n", p.Plan)
	} else {
		fmt.Fprintf(&b, "- Plan: none yet (one in %s, numbered steps under `## Plan:`, is kept too)\n", p.Plan)
	}
	fmt.Fprintf(&b, "- Decisions: %s (`ctxgit decide \"…\" --why \"…\"`)\n", p.Decisions)
	fmt.Fprintf(&b, "- Failure log: %s (`ctxgit fail \"…\"`; once fixed, `ctxgit fail --resolved`)\n", p.FailureLog)
	fmt.Fprintf(&b, "- Next action: %s (`ctxgit state set next_action \"…\"`)\n", p.TaskState)
	b.WriteString("What is saved there is restored after a compaction.\n")
	card := b.String()
	if runes(card) > MaxOnboardingChars {
		// Configured paths long enough to overflow: the commands matter
		// more than where the files are.
		mark := ""
		if hasPlan {
			mark = "`ctxgit plan mark N done`, "
		}
		card = "# ctxgit keeps this workspace's working state across compaction\n" +
			"Commands: " + mark + "`ctxgit decide \"…\" --why \"…\"`, `ctxgit fail \"…\"`, `ctxgit state set next_action \"…\"`.\n" +
			"What is saved with them is restored after a compaction.\n"
	}
	return card
}

// HasPlan reports whether the workspace has a plan file, so `ctxgit plan
// mark` has something to mark: the card and the nudge teach it only then.
func HasPlan(w *workspace.Workspace) bool {
	fi, err := w.StatStateFile(w.Config.Paths.Plan)
	return err == nil && fi.Mode().IsRegular()
}
