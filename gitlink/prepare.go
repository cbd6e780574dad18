package gitlink

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// TriggerCommit names the checkpoint the hook takes before a commit whose
// staged change is newer than the session's newest checkpoint.
const TriggerCommit = "commit"

// PrepareResult says what the hook did to one commit message.
type PrepareResult struct {
	// Skipped says why no trailer was added ("" when one was).
	Skipped string
	Link    spec.CheckpointLink
	// Took is true when the hook took a checkpoint first.
	Took bool
}

// replaying are the files git keeps while it replays commits that already
// have their messages: a rebase, a cherry-pick. A revert is not among
// them: it is a new change with a message git writes afresh, linked like
// any commit made in the session.
var replaying = []string{"rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD"}

// PrepareCommitMsg is the prepare-commit-msg hook (docs/cli.md#init): when
// a session is active in the workspace, it links the commit being made to
// the session's newest checkpoint, taking one first when the staged change
// is newer, by adding a Ctxgit-Checkpoint trailer to msgFile as `git
// interpret-trailers` adds it (an equal trailer is not added twice).
// session is CTXGIT_SESSION, if set.
func PrepareCommitMsg(ctx context.Context, w *workspace.Workspace, msgFile, session string) (PrepareResult, error) {
	if w.Repo == nil {
		return PrepareResult{Skipped: "the workspace keeps a private store"}, nil
	}
	for _, name := range replaying {
		if _, err := os.Lstat(filepath.Join(w.Repo.GitDir, name)); err == nil {
			return PrepareResult{Skipped: "git is replaying commits (" + name + ")"}, nil
		}
	}
	if session == "" {
		cur, ok := workspace.CurrentSessionAt(w.Root, w.Env.Now())
		if !ok {
			return PrepareResult{Skipped: "no ctxgit session is active here"}, nil
		}
		session = cur.Session
	}
	store, err := w.ReadStore()
	if err != nil {
		return PrepareResult{}, err
	}
	var cp *spec.Checkpoint
	if store != nil {
		if _, cp, err = w.SessionHead(store, session); err != nil {
			return PrepareResult{}, err
		}
	}
	res := PrepareResult{}
	if cp == nil || stagedAfter(w, cp) {
		out, err := w.Checkpoint(workspace.CheckpointOptions{Session: session, Trigger: TriggerCommit,
			Message: "before a commit", Ctx: ctx})
		if err != nil {
			return PrepareResult{}, err
		}
		cp, res.Took = out.Checkpoint, true
	}
	res.Link = spec.LinkTo(session, cp.Meta.CheckpointID)
	if err := endLine(msgFile); err != nil {
		return res, err
	}
	_, err = git(ctx, w.Repo.WorkTree, "interpret-trailers", "--in-place", "--if-exists", "addIfDifferent",
		"--trailer", spec.TrailerKey+": "+res.Link.String(), msgFile)
	return res, err
}

// stagedAfter reports whether the index was written after the checkpoint:
// what is being committed may then not be in it.
func stagedAfter(w *workspace.Workspace, cp *spec.Checkpoint) bool {
	index := os.Getenv("GIT_INDEX_FILE")
	if index == "" {
		index = filepath.Join(w.Repo.GitDir, "index")
	} else if !filepath.IsAbs(index) {
		index = filepath.Join(w.Repo.WorkTree, index)
	}
	fi, err := os.Stat(index)
	if err != nil {
		return true
	}
	return fi.ModTime().Truncate(1e9).After(cp.Meta.CreatedAt)
}

// endLine ends the message with a newline when it has none, as a merge's
// does: git interpret-trailers would put the trailer on the subject's
// paragraph otherwise.
func endLine(path string) error {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte{'\n'})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
