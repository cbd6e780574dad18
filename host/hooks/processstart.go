package hooks

import "github.com/ctxgit/ctxgit/workspace"

// Qwen Code and GitHub Copilot CLI put a SessionStart hook's context into
// the running process's requests only, never into the recorded
// conversation: Qwen Code into its system prompt, replacing what an
// earlier SessionStart of the process put there (QwenLM/qwen-code
// packages/core/src/core/geminiChat.ts, setSessionStartContext; seen in
// 0.24.4's bundle), Copilot CLI as a user message at the head of the
// process's requests (seen with 1.0.102: a `copilot --continue` run's
// requests hold its own sessionStart text and none of the earlier run's).
// A resume starts a new process that holds none of what an earlier start
// answered; Qwen Code's compaction start (source compact) ends the process
// in headless `qwen -c -p /compress` before any request carries it, and
// Copilot CLI has no post-compaction event at all. So, as OpenClaw's
// bootstrap answers (openclaw.go), what a session start answered (the card
// and a block on the session's first start, the recovery after a
// compaction) is kept, and every later session start of the session
// answers it again, until the plan changes or the next compaction brings a
// new recovery: each process's requests hold it exactly once
// (docs/HOSTS.md, "Qwen Code", "GitHub Copilot CLI").

// processStart answers a session start on such a host: every source but
// clear (a new conversation, which answers nothing).
func (c *call) processStart(w *workspace.Workspace) error {
	if c.p.Source == "clear" {
		c.dropAnswer(w.Root)
		return c.deferCheckpoint(w, "session-start")
	}
	if exists(pendingPath(w.Root, c.session)) {
		// A compaction's recovery, from its checkpoint, alone.
		return c.keepAnswer(w, func() error { return c.deliverPending(w) })
	}
	if text, ok := c.keptAnswer(w); ok {
		if err := c.writeContext(text); err != nil {
			return err
		}
	} else if c.p.Source != "compact" {
		if err := c.keepAnswer(w, func() error { return c.startupInjection(w) }); err != nil {
			return err
		}
	}
	if c.p.Source == "compact" {
		return nil
	}
	return c.deferCheckpoint(w, "session-start")
}
