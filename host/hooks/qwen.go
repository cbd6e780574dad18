package hooks

import (
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// Qwen Code puts a SessionStart hook's additionalContext into the system
// prompt of the running process, replacing what an earlier SessionStart of
// the process put there (QwenLM/qwen-code packages/core/src/core/
// geminiChat.ts, setSessionStartContext; seen in 0.24.4's bundle), and
// never into the recorded conversation. A `qwen -c` resume starts a new
// process whose system prompt holds none of it; the compaction's own
// SessionStart (source compact) ends the process in headless
// `qwen -c -p /compress` before any request carries it. So, as OpenClaw's
// bootstrap answers (openclaw.go), what a session start answered (the card
// and a block on the session's first start, the recovery after a
// compaction) is kept, and every later session start of the session
// answers it again, until the plan changes or the next compaction brings a
// new recovery: each process's requests hold it exactly once
// (docs/HOSTS.md, "Qwen Code").

// qwenSessionStart answers Qwen Code's SessionStart, every source but clear
// (a new conversation, which answers nothing).
func (c *call) qwenSessionStart(w *workspace.Workspace) error {
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

// qwenStop takes the reading Qwen Code's Stop reports (context_usage over
// context_limit, the window Qwen compacts against; docs/users/features/
// hooks.md, "Stop"): the window it records is the one later readings from
// the chat record are measured against, and a reading past pressure.flush
// leaves the nudge for the next prompt or tool call. Stop's output reaches
// no model, so it prints nothing.
func (c *call) qwenStop() error {
	limit := c.p.ContextLimit
	if limit == nil || *limit <= 0 {
		return nil
	}
	var tokens int64
	switch {
	case c.p.InputTokens != nil && *c.p.InputTokens > 0:
		tokens = *c.p.InputTokens
	case c.p.ContextUsage != nil && *c.p.ContextUsage > 0:
		tokens = int64(*c.p.ContextUsage * float64(*limit))
	default:
		return nil
	}
	if st := c.readState(); st.StaleTokens != 0 && tokens == st.StaleTokens {
		return nil // the reading the last compaction began at
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	c.recordSession(w.Root)
	_, err = c.gaugeUpdate(w, taskstate.Pressure{Value: float64(tokens) / float64(*limit), Known: true,
		Source: "host", Tokens: tokens, Window: *limit})
	return err
}
