package taskstate

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/workspace"
)

// MaxOnboardingChars bounds the onboarding card (docs/cli.md#hook).
const MaxOnboardingChars = 600

// CardWords is how a card teaches the calls that keep the working state:
// the CLI's commands (CLIWords) or an MCP server's tools. Each names a
// call that works as written in the workspace the card is shown in.
type CardWords struct {
	Mark       string // marking a plan step done, taught only where there is a plan
	Decide     string
	Fail       string // recording a failure, and resolving it once fixed
	NextAction string
	Recover    string // showing the saved state again; "" for none
	// Short lists the calls in one line, for a card whose configured
	// paths are long enough to overflow MaxOnboardingChars.
	Short string
}

// CLIWords teaches the CLI's commands: the card `ctxgit init --host`
// prints and the hooks show.
var CLIWords = CardWords{
	Mark:       "`ctxgit plan mark N done`",
	Decide:     "`ctxgit decide \"…\" --why \"…\"`",
	Fail:       "`ctxgit fail \"…\"`; once fixed, `ctxgit fail --resolved`",
	NextAction: "`ctxgit state set next_action \"…\"`",
	Short:      "Commands: `ctxgit decide \"…\" --why \"…\"`, `ctxgit fail \"…\"`, `ctxgit state set next_action \"…\"`.",
}

// OnboardingCard is what a session's first start tells the agent, as
// facts: where its working state lives and the commands that keep it.
// `ctxgit init --host` prints the same card. Every command it names
// works as written in the workspace it is shown in (TestTaughtCommands):
// `plan mark` only where there is a plan to mark.
func OnboardingCard(w *workspace.Workspace) string { return Card(w, CLIWords) }

// Card is the onboarding card teaching words' calls: the CLI's
// (OnboardingCard) or the MCP server's tools (its instructions), so
// the two say the same of the same files.
func Card(w *workspace.Workspace, words CardWords) string {
	p := w.Config.Paths
	hasPlan := HasPlan(w)
	var b strings.Builder
	b.WriteString("# ctxgit keeps this workspace's working state across compaction\n")
	if hasPlan {
		fmt.Fprintf(&b, "- Plan: %s (%s)\n", p.Plan, words.Mark)
	} else {
		fmt.Fprintf(&b, "- Plan: none yet (one in %s, numbered steps under `## Plan:`, is kept too)\n", p.Plan)
	}
	// A file is named as where it is when it exists, else as where the
	// call taught writes it: the card names no file that is not there.
	kept := func(what, path, call string) {
		if fi, err := w.StatStateFile(path); err == nil && fi.Mode().IsRegular() {
			fmt.Fprintf(&b, "- %s: %s (%s)\n", what, path, call)
			return
		}
		fmt.Fprintf(&b, "- %s: %s (writes %s)\n", what, call, path)
	}
	kept("Decisions", p.Decisions, words.Decide)
	kept("Failure log", p.FailureLog, words.Fail)
	kept("Next action", p.TaskState, words.NextAction)
	b.WriteString("What is saved there is restored after a compaction")
	if words.Recover != "" {
		b.WriteString("; " + words.Recover + " shows it again")
	}
	b.WriteString(".\n")
	card := b.String()
	if runes(card) > MaxOnboardingChars {
		// Configured paths long enough to overflow: the calls matter
		// more than where the files are.
		short := words.Short
		if hasPlan {
			short = strings.Replace(short, ": ", ": "+words.Mark+", ", 1)
		}
		card = "# ctxgit keeps this workspace's working state across compaction\n" +
			short + "\n" +
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
