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
	// A file is named as where it is when it exists, else as where the
	// command taught writes it: the card names no file that is not there.
	kept := func(what, path, cmd string) {
		if fi, err := w.StatStateFile(path); err == nil && fi.Mode().IsRegular() {
			fmt.Fprintf(&b, "- %s: %s (%s)\n", what, path, cmd)
			return
		}
		fmt.Fprintf(&b, "- %s: %s (writes %s)\n", what, cmd, path)
	}
	kept("Decisions", p.Decisions, "`ctxgit decide \"…\" --why \"…\"`")
	kept("Failure log", p.FailureLog, "`ctxgit fail \"…\"`; once fixed, `ctxgit fail --resolved`")
	kept("Next action", p.TaskState, "`ctxgit state set next_action \"…\"`")
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
