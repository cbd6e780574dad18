package taskstate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

const resumePlan = `## Plan: Ledger migration

**Goal**: move billing to the new ledger without downtime

### Steps
1. Inventory — list every ledger call ✅
2. Dual write — write to both ledgers [in progress]
3. Cut over — switch reads
`

// SPEC §10.3: a resumed conversation holds the state of the checkpoint it
// ran through; the resume gets only what changed since, or nothing.
func TestResumeDelta(t *testing.T) {
	w := plainWS(t, map[string]string{".active-plan.md": resumePlan})
	dir := w.Root
	openWS := func(t *testing.T, dir string) *workspace.Workspace {
		t.Helper()
		w, err := workspace.Open(w.Env, dir)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	if _, err := Ensure(w, EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Decide(w, "keep the v1 ledger read-only", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: "sess-a"}); err != nil {
		t.Fatal(err)
	}
	held, err := w.Resolve("", "sess-a")
	if err != nil {
		t.Fatal(err)
	}
	delta := func() string {
		t.Helper()
		text, err := workspace.ResumeDelta(openWS(t, dir), held, workspace.ResumedTitle("sess-a"))
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	if got := delta(); got != "" {
		t.Fatalf("nothing changed, yet a delta:\n%s", got)
	}

	// The plan moves on and the next action is set: both, and nothing the
	// conversation holds already (the old decision).
	if _, err := MarkStep(w, "2", spec.StepDone, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := SetTaskField(w, "next_action", "switch the reads behind a flag"); err != nil {
		t.Fatal(err)
	}
	got := delta()
	for _, want := range []string{
		"# Resumed: session sess-a (since you left)\n\nThis conversation holds checkpoint sess-a:cp_001 (2026-11-22T10:00:00Z); since then:\n",
		"- Plan: 2 of 3 steps done, current step \"3. Cut over — switch reads\" (was \"2. Dual write — write to both ledgers\")\n",
		"- Next action: switch the reads behind a flag\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "keep the v1 ledger") || strings.Contains(got, "Post-Compaction") {
		t.Errorf("the delta repeats what the conversation holds:\n%s", got)
	}

	// Many decisions: the newest few, and how many in all.
	for i := range 7 {
		if _, err := Decide(w, fmt.Sprintf("decision number %d", i+1), ""); err != nil {
			t.Fatal(err)
		}
	}
	got = delta()
	if !strings.Contains(got, "- 7 decisions added; the newest 5:\n- Decision added: [d_004] decision number 3\n") ||
		strings.Count(got, "Decision added:") != 5 || !strings.Contains(got, "[d_008] decision number 7") {
		t.Errorf("want the newest 5 of 7 decisions:\n%s", got)
	}

	// Another session's checkpoint, newer than the one held: named, with
	// the command that shows it.
	later := w.Env.Now().Add(time.Minute)
	w2, err := workspace.Open(workspace.Env{Now: func() time.Time { return later }, Getenv: func(string) string { return "" }, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Checkpoint(workspace.CheckpointOptions{Session: "sess-b"}); err != nil {
		t.Fatal(err)
	}
	if got := delta(); !strings.Contains(got, "- Another session checkpointed since: sess-b:cp_001, 2026-11-22 10:01 UTC (`ctxgit recover sess-b:cp_001` shows it)\n") {
		t.Errorf("no line for the newer checkpoint of sess-b:\n%s", got)
	}
}
