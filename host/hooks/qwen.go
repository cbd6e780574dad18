package hooks

import (
	"github.com/ctxgit/ctxgit/taskstate"
)

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
	st := c.readState()
	if st.StaleTokens != 0 && tokens == st.StaleTokens {
		return nil // the reading the last compaction began at
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	c.recordSession(w.Root)
	_, err = c.gaugeUpdate(w, taskstate.Pressure{Value: float64(tokens) / float64(*limit), Known: true,
		Source: "host", Tokens: tokens, Window: *limit}, &st)
	return err
}
