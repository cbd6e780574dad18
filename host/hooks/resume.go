package hooks

import (
	"github.com/ctxgit/ctxgit/workspace"
)

// resumeInjection answers a SessionStart that continues a conversation the
// host replays whole: a resume of this session, or a fork (Claude Code's
// `--fork-session`: a new session id over a copy of another session's
// conversation). The conversation already holds the state of the newest
// checkpoint it ran through, so ctxgit injects only what changed since
// then ("since you left"), or nothing (docs/cli.md#hook). A compaction
// whose recovery never reached the conversation (a pending marker) is
// delivered first. A session with no checkpoint of its own to stand on is
// a start like any other.
func (c *call) resumeInjection(w *workspace.Workspace) error {
	if workspace.LocalExists(w.Root, pendingPath(w.Root, c.session)) {
		return c.deliverPending(w)
	}
	held, err := c.heldCheckpoint(w)
	if err != nil || held == nil {
		if err != nil {
			return err
		}
		return c.startupInjection(w)
	}
	if c.p.Source == "fork" {
		// The copied conversation holds its parent's card: the fork is
		// onboarded already.
		if err := c.markOnboarded(w.Root); err != nil {
			return err
		}
	}
	text, err := workspace.ResumeDelta(w, held, workspace.ResumedTitle(held.Session))
	if err != nil || text == "" {
		return err
	}
	return c.writeContext(text)
}

// heldCheckpoint is the newest checkpoint a continued conversation holds:
// this session's own newest; for a fork with none yet, the workspace's
// newest, the state the copied conversation ran through. Nil when there
// is none.
func (c *call) heldCheckpoint(w *workspace.Workspace) (*workspace.Resolved, error) {
	if w.HasCheckpoints(c.session) {
		return w.Resolve("", c.session)
	}
	if c.p.Source != "fork" {
		return nil, nil
	}
	return w.Newest()
}

// markOnboarded records that the session's conversation holds the card.
func (c *call) markOnboarded(root string) error {
	return workspace.WriteLocal(root, localPath(root, "onboarded", c.session), nil, 0o644)
}
