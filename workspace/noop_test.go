package workspace_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// objectFiles lists every file under a git directory's objects/ with its
// size: what a checkpoint wrote, loose or packed.
func objectFiles(t *testing.T, gitDir string) string {
	t.Helper()
	var out []string
	root := filepath.Join(gitDir, "objects")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, fmt.Sprintf("%s %d", filepath.ToSlash(rel), fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// looseCount counts a git directory's loose objects.
func looseCount(t *testing.T, gitDir string) int {
	t.Helper()
	n := 0
	dirs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "[0-9a-f][0-9a-f]"))
	for _, d := range dirs {
		files, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		n += len(files)
	}
	return n
}

// fsck runs git fsck --strict and fails on anything but its notices (an
// unborn HEAD).
func fsck(t *testing.T, dir string) {
	t.Helper()
	for _, l := range strings.Split(gitOut(t, dir, "fsck", "--strict", "--no-dangling", "--no-progress"), "\n") {
		if l != "" && !strings.HasPrefix(l, "notice:") {
			t.Fatalf("git fsck: %s", l)
		}
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	wstest.NeedGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// SPEC §8.7: a checkpoint that would record nothing its session's head
// does not writes nothing — no object, no ref move — and returns the head;
// a change of the tree, of a state file, of the reading or of the trigger
// is recorded, and a compaction always is.
func TestCheckpointUnchangedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	w := openWS(t, dir)
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	first, err := w.Checkpoint(workspace.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(dir, ".git")
	step := 0
	expect := func(what string, o workspace.CheckpointOptions, unchanged bool, id string) *workspace.CheckpointResult {
		t.Helper()
		step++
		before := objectFiles(t, gitDir)
		head := gitOut(t, dir, "rev-parse", "refs/ctxgit/sessions/default")
		res, err := w.Checkpoint(o)
		if err != nil {
			t.Fatalf("%d (%s): %v", step, what, err)
		}
		after := gitOut(t, dir, "rev-parse", "refs/ctxgit/sessions/default")
		if res.Unchanged != unchanged || res.Checkpoint.Meta.CheckpointID != id {
			t.Fatalf("%d (%s): unchanged %v, %s; want %v, %s", step, what, res.Unchanged, res.Checkpoint.Meta.CheckpointID, unchanged, id)
		}
		if res.Commit.String() != after {
			t.Fatalf("%d (%s): result names commit %s, the ref is at %s", step, what, res.Commit, after)
		}
		if unchanged {
			if after != head {
				t.Fatalf("%d (%s): the ref moved from %s to %s", step, what, head, after)
			}
			if now := objectFiles(t, gitDir); now != before {
				t.Fatalf("%d (%s): objects written:\nbefore\n%s\nafter\n%s", step, what, before, now)
			}
		} else if after == head {
			t.Fatalf("%d (%s): no new commit", step, what)
		}
		return res
	}

	expect("nothing changed", workspace.CheckpointOptions{}, true, "cp_001")
	if r := expect("again", workspace.CheckpointOptions{}, true, "cp_001"); r.Commit != first.Commit {
		t.Fatalf("unchanged checkpoint names %s, the head is %s", r.Commit, first.Commit)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644)
	expect("a file changed", workspace.CheckpointOptions{}, false, "cp_002")
	expect("nothing since", workspace.CheckpointOptions{}, true, "cp_002")
	if err := decide(w, "keep it small", ""); err != nil {
		t.Fatal(err)
	}
	expect("a state file changed", workspace.CheckpointOptions{}, false, "cp_003")
	usage := spec.TokenUsage{InputTokens: 1000, ContextWindow: 200000, Utilization: 0.005, Source: "host"}
	expect("a reading", workspace.CheckpointOptions{Usage: usage}, false, "cp_004")
	expect("the same reading", workspace.CheckpointOptions{Usage: usage}, true, "cp_004")
	expect("another trigger", workspace.CheckpointOptions{Usage: usage, Trigger: spec.TriggerSessionEnd}, false, "cp_005")
	expect("a message", workspace.CheckpointOptions{Usage: usage, Trigger: spec.TriggerSessionEnd, Message: "why"}, false, "cp_006")
	compaction := workspace.CheckpointOptions{Usage: usage, Trigger: spec.TriggerCompaction}
	expect("a compaction", compaction, false, "cp_007")
	expect("another compaction", compaction, false, "cp_008")

	fsck(t, dir)
	if s := gitOut(t, dir, "status", "--porcelain", "--untracked-files=no"); s != "" {
		t.Fatalf("git status: %s", s)
	}
}

// SPEC §14.4: checkpoint objects are packed before git's gc.auto would
// trigger. With gc.auto lowered to 64, sixty checkpoints that each change
// a file (a handful of loose objects apiece) never leave as many loose
// objects as gc.auto, the packs they make are merged before they pile up,
// and the repository stays whole.
func TestCheckpointsPackLooseObjects(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "config", "gc.auto", "64")
	w := openWS(t, dir)
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(dir, ".git")
	packed, merged, most, mostPacks := 0, 0, 0, 0
	const n = 60
	for i := range n {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i%7)), fmt.Appendf(nil, "change %d\n", i), 0o644)
		res, err := w.Checkpoint(workspace.CheckpointOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) > 0 {
			t.Fatalf("checkpoint %d: %v", i+1, res.Problems)
		}
		if res.Packed != nil {
			packed++
			if res.Packed.Packed == 0 || res.Packed.RemovedLoose != res.Packed.Packed {
				t.Fatalf("checkpoint %d: pack of %d objects removed %d loose ones", i+1, res.Packed.Packed, res.Packed.RemovedLoose)
			}
			if res.Packed.RemovedPacks > 0 {
				merged++
			}
		}
		most = max(most, looseCount(t, gitDir))
		packs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "pack-*.idx"))
		mostPacks = max(mostPacks, len(packs))
	}
	// Its own packs are merged from the eighth on, so they never pile up
	// towards git's gc.autoPackLimit (50).
	if packed < 9 || merged < 1 || mostPacks > 8 {
		t.Fatalf("%d incremental packs, %d merges, up to %d pack files; want at least 9, a merge, at most 8", packed, merged, mostPacks)
	}
	if most >= 64 {
		t.Fatalf("up to %d loose objects between packs; want fewer than gc.auto (64)", most)
	}
	if got := gitOut(t, dir, "rev-list", "--count", "refs/ctxgit/sessions/default"); got != fmt.Sprint(n) {
		t.Fatalf("%s checkpoints on the chain, want %d", got, n)
	}
	fsck(t, dir)
	// Every checkpoint still reads: the whole chain's trees and blobs.
	gitOut(t, dir, "log", "-p", "--format=%H", "refs/ctxgit/sessions/default")
}

// SPEC §14.4: loose objects that are not ctxgit's (the user's own, left to
// git's gc) do not make every checkpoint pack again: after a pack the next
// waits until the estimate has grown by the limit once more.
func TestAutoPackLeavesOthersLooseObjects(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	// The default limit (512): the user's 700 loose objects are past it,
	// and a few checkpoints' objects are far from 700 + 512.
	userDir := t.TempDir()
	var names []string
	for i := range 700 {
		name := filepath.Join(userDir, fmt.Sprint(i))
		os.WriteFile(name, fmt.Appendf(nil, "the user's blob %d\n", i), 0o644)
		names = append(names, name)
	}
	cmd := exec.Command("git", "hash-object", "-w", "--stdin-paths")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git hash-object: %v\n%s", err, out)
	}
	w := openWS(t, dir)
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	gitDir := filepath.Join(dir, ".git")
	var packs []int
	for i := range 6 {
		os.WriteFile(filepath.Join(dir, "a.txt"), fmt.Appendf(nil, "change %d\n", i), 0o644)
		res, err := w.Checkpoint(workspace.CheckpointOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Packed != nil {
			packs = append(packs, i+1)
		}
	}
	if len(packs) != 1 || packs[0] != 1 {
		t.Fatalf("packed at checkpoints %v, want only the first", packs)
	}
	if n := looseCount(t, gitDir); n < 700 {
		t.Fatalf("%d loose objects: some of the user's 700 were packed", n)
	}
	fsck(t, dir)
}
