package review

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// worktreeSide is the working tree as one side of a diff
// (docs/cli.md#diff): what a checkpoint of the session would hold now,
// its snapshot and state files, hashed through a view that stores
// nothing. Blobs the store lacks are read back from the files they were
// hashed from, so a diff of the working tree writes no object, ref or
// stat cache and takes no lock.
type worktreeSide struct {
	store vcs.Store // the workspace's store, read only
	blobs *worktreeBlobs
	tree  vcs.Hash
}

func readWorktreeSide(w *workspace.Workspace, session string) (*worktreeSide, error) {
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, spec.NotFound("the workspace has no checkpoints")
	}
	view := vcs.NewHashOnly(store)
	_, tree, err := w.PendingCheckpoint(context.Background(), view, session)
	if err != nil {
		return nil, err
	}
	return &worktreeSide{store: store, blobs: &worktreeBlobs{Store: view, root: w.Root, paths: map[vcs.Hash]worktreeFile{}}, tree: tree}, nil
}

// changesFrom are the files that differ from checkpoint commit from to
// the working tree, ctxgit's output files left out as in every diff.
// Each new blob is noted with the file it was hashed from, to be read
// back.
func (s *worktreeSide) changesFrom(from vcs.Hash) ([]vcs.Change, error) {
	c, err := vcs.ReadCommit(s.store, from)
	if err != nil {
		return nil, err
	}
	changes, err := vcs.DiffTrees(s.blobs, c.Tree, s.tree)
	if err != nil {
		return nil, err
	}
	kept := changes[:0]
	for _, ch := range changes {
		if workspace.IsCheckpointOutput(ch.Path) {
			continue
		}
		if !ch.NewID.IsZero() {
			s.blobs.paths[ch.NewID] = worktreeFile{ch.Path, ch.NewMode}
		}
		kept = append(kept, ch)
	}
	return kept, nil
}

// state reads the working tree's plan, decisions and failure log as a
// checkpoint would hold them, and the task state from its file.
func (s *worktreeSide) state(w *workspace.Workspace) (*cpState, error) {
	st := &cpState{}
	if err := st.readTree(w, s.blobs, s.tree, "", w.Config.Paths.Plan); err != nil {
		return nil, err
	}
	if task, err := w.ReadTaskState(); err != nil {
		st.problems = append(st.problems, err)
	} else if task.Exists {
		st.task = task.State
	}
	// Open items as a checkpoint gathers them: the plan's, then the task
	// state's open issues and blockers.
	if st.plan != nil {
		st.openItems = append(st.openItems, st.plan.OpenItems...)
	}
	if st.task != nil {
		st.openItems = append(st.openItems, st.task.OpenIssues...)
		st.openItems = append(st.openItems, st.task.Blockers...)
	}
	return st, nil
}

// WorktreeChanges is what differs from a checkpoint to the working tree,
// read once: whether they differ, the diff and the patch all come from
// that one reading (a walk and hash of the working tree), so what a
// command decides and what it shows agree.
type WorktreeChanges struct {
	From    *workspace.Resolved
	side    *worktreeSide
	changes []vcs.Change
}

// ReadWorktreeChanges reads the working tree as a checkpoint of session
// would take it now, and what differs from checkpoint from to it.
func ReadWorktreeChanges(w *workspace.Workspace, from *workspace.Resolved, session string) (*WorktreeChanges, error) {
	s, err := readWorktreeSide(w, session)
	if err != nil {
		return nil, err
	}
	changes, err := s.changesFrom(from.Commit)
	if err != nil {
		return nil, err
	}
	return &WorktreeChanges{From: from, side: s, changes: changes}, nil
}

// Differs reports whether the working tree differs from the checkpoint:
// a file, a state file, or the task state.
func (c *WorktreeChanges) Differs() bool { return len(c.changes) > 0 }

// DiffWorktree compares the checkpoint with the working tree as c read
// it, as `git diff COMMIT` compares a commit with the working tree. The
// Diff's To is nil and Worktree set.
func DiffWorktree(w *workspace.Workspace, c *WorktreeChanges, o DiffOptions) (*Diff, error) {
	s := c.side
	d := &Diff{From: c.From, Worktree: true, Files: make([]FileDiff, 0, len(c.changes))}
	for _, ch := range c.changes {
		f := FileDiff{Path: ch.Path, Status: ch.Status, From: ch.From}
		if o.Lines {
			if err := countLines(s.blobs, ch, &f); err != nil {
				// Gone or replaced since it was hashed: listed, not
				// counted.
				f.Lines, f.Added, f.Removed = "", 0, 0
			}
		}
		d.Files = append(d.Files, f)
	}
	if !o.Semantic {
		return d, nil
	}
	a, err := readCPState(w, s.store, c.From)
	if err != nil {
		return nil, err
	}
	b, err := s.state(w)
	if err != nil {
		return nil, err
	}
	compareStates(d, a, b)
	return d, nil
}

// WritePatchWorktree writes the unified patch from the checkpoint to the
// working tree as c read it, as WritePatch does between two checkpoints
// and as `git diff COMMIT` prints it.
func WritePatchWorktree(out io.Writer, c *WorktreeChanges, o PatchOptions) error {
	return writePatch(out, c.side.blobs, c.changes, o)
}

// writePatch writes changes' patch, their blobs read from store.
func writePatch(out io.Writer, store vcs.Store, changes []vcs.Change, o PatchOptions) error {
	if o.Paint == nil {
		o.Paint = func(_ PatchPart, s string) string { return s }
	}
	bw := bufio.NewWriter(out)
	p := &patchWriter{w: bw, paint: o.Paint}
	for _, c := range changes {
		if err := p.change(store, c); err != nil {
			return fmt.Errorf("%s: %w", c.Path, err)
		}
	}
	return bw.Flush()
}
