package review_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#diff: DiffWorktree compares a checkpoint with what a
// checkpoint would hold now: files with their counts and the state's
// changes, and the patch is the one the next checkpoint records.
func TestDiffWorktree(t *testing.T) {
	w := history(t)
	head, err := w.Resolve("@", "default")
	if err != nil {
		t.Fatal(err)
	}
	if wt, err := review.ReadWorktreeChanges(w, head, "default"); err != nil || wt.Differs() {
		t.Fatalf("right after a checkpoint: %v; want no difference", err)
	}
	if err := os.WriteFile(filepath.Join(w.Root, "csv.go"), []byte("package csv\n\nfunc Encode() error { return nil }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Root, "new.go"), []byte("package csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := taskstate.Decide(w, "Keep the header row", ""); err != nil {
		t.Fatal(err)
	}
	wt, err := review.ReadWorktreeChanges(w, head, "default")
	if err != nil || !wt.Differs() {
		t.Fatalf("after edits: %v; want a difference", err)
	}
	// The diff shows the working tree as it was read, when the command
	// decided it differs: a file made since is not in it.
	if err := os.WriteFile(filepath.Join(w.Root, "late.go"), []byte("package csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := review.DiffWorktree(w, wt, review.DiffOptions{Lines: true, Semantic: true})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Worktree || d.To != nil || d.From != head {
		t.Errorf("sides: worktree %v, to %v, from %v", d.Worktree, d.To, d.From)
	}
	var files []string
	for _, f := range d.Files {
		files = append(files, fmt.Sprintf("%s %s %s +%d -%d", f.Status, f.Path, f.Lines, f.Added, f.Removed))
	}
	want := "M .ctxgit/decisions.md counted +1 -0|M csv.go counted +1 -1|A new.go counted +1 -0"
	if got := strings.Join(files, "|"); got != want {
		t.Errorf("files:\n%s\nwant\n%s", got, want)
	}
	if len(d.Decisions) != 1 || d.Decisions[0].Change != review.ChangeAdded || d.Decisions[0].What != "Keep the header row" {
		t.Errorf("decisions: %+v", d.Decisions)
	}

	// The patch of the working tree is the patch of the checkpoint that
	// records it.
	var worktreePatch strings.Builder
	if err := os.Remove(filepath.Join(w.Root, "late.go")); err != nil {
		t.Fatal(err)
	}
	if wt, err = review.ReadWorktreeChanges(w, head, "default"); err != nil {
		t.Fatal(err)
	}
	if err := review.WritePatchWorktree(&worktreePatch, wt, review.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: "default", Trigger: spec.TriggerManual}); err != nil {
		t.Fatal(err)
	}
	next, err := w.Resolve("@", "default")
	if err != nil {
		t.Fatal(err)
	}
	var cpPatch strings.Builder
	if err := review.WritePatch(w, &cpPatch, head, next, review.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if worktreePatch.String() != cpPatch.String() || !strings.Contains(cpPatch.String(), "+func Encode() error { return nil }") {
		t.Errorf("working tree patch:\n%s\ncheckpoint patch:\n%s", worktreePatch.String(), cpPatch.String())
	}
}
