package realhost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the tier checks of the hosts issue 33 added (Qwen Code, GitHub
// Copilot CLI, opencode), shared by their tests.

// planGoal is the goal of the plan the new hosts' workspaces hold: the
// recovery after a compaction must carry it.
const planGoal = "the batch packer writes batches of 500"

// writePlan puts a plan with planGoal into the workspace.
func writePlan(w *Workspace) {
	w.WriteFile(".active-plan.md", "## Plan: Pack the batches\n\n**Goal**: "+planGoal+"\n\n### Steps\n1. Echo hello\n2. Check the output\n")
}

// oneRecovery checks that a request holds exactly one ctxgit block, the
// recovery built from checkpoint id, with the plan's goal, and no card.
func oneRecovery(t *testing.T, body []byte, id, when string) {
	t.Helper()
	if n := CountBlocks(body); n != 1 {
		t.Errorf("%s: %d ctxgit blocks, want 1", when, n)
	}
	if n := Count(body, "# Post-Compaction Recovery"); n != 1 {
		t.Errorf("%s: %d recovery blocks, want 1", when, n)
	}
	if ids := blockCheckpoints(body); len(ids) != 1 || ids[0] != id {
		t.Errorf("%s: the block is from %q, want the compaction checkpoint %s exactly", when, ids, id)
	}
	if !strings.Contains(string(body), planGoal) {
		t.Errorf("%s: the recovery lacks the plan's goal %q", when, planGoal)
	}
	if n := Count(body, cardMarker); n != 0 {
		t.Errorf("%s: the card %d times, want 0 (the session had it)", when, n)
	}
}

// noHookFailures fails the test when a hook logged a failure.
func noHookFailures(t *testing.T, w *Workspace) {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(w.Dir, ".ctxgit", "local", "ctxgit.log")); err == nil {
		t.Errorf("hook failures logged:\n%s", data)
	}
}
