package hooks

import (
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
)

// opencode keeps a session's messages in its own database
// (~/.local/share/opencode/opencode.db, which also holds the accounts'
// tokens): ctxgit reads none of it. ctxgit's plugin (host/config/opencode/
// ctxgit.js) passes what a hook needs instead: the session's newest usage
// as opencode records it on the assistant message (tokens {input, output,
// cache {read, write}}; input excludes the cache reads) with the model's
// window (limit.context), and at a compaction the session's messages,
// read through opencode's own API, as a JSONL file (transcript.OpenCode).

// openCodeTokens is an assistant message's usage as opencode records it.
type openCodeTokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Cache  struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// payloadUsage is the usage the plugin passed, over the window it passed
// (else knownWindow's, the one recorded for the session), as a checkpoint
// records it.
func (c *call) payloadUsage(knownWindow func() int64) (spec.TokenUsage, bool) {
	t := c.p.Tokens
	if c.Host != "opencode" || t == nil {
		return spec.TokenUsage{}, false
	}
	used := t.Input + t.Cache.Read + t.Cache.Write
	if used <= 0 {
		return spec.TokenUsage{}, false
	}
	window := int64(0)
	if c.p.ContextWindow != nil && *c.p.ContextWindow > 0 {
		window = *c.p.ContextWindow
	} else {
		window = knownWindow()
	}
	return spec.TokenUsage{InputTokens: used, ContextWindow: window, Utilization: float64(used) / float64(window), Source: "host"}, true
}

// gaugeFromPayload updates the gauge from the usage the plugin passed on
// a tool call, unless it is the reading the last compaction began at (the
// plugin passes the newest usage it saw, which right after a compaction
// can be the one from before it).
func (c *call) gaugeFromPayload() error {
	if c.p.Tokens == nil {
		return nil // no host but opencode's plugin passes tokens
	}
	st := c.readState()
	u, ok := c.payloadUsage(st.knownWindow)
	if !ok || st.StaleTokens != 0 && u.InputTokens == st.StaleTokens {
		return nil
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	_, err = c.gaugeUpdate(w, taskstate.Pressure{Value: u.Utilization, Known: true, Source: "host", Tokens: u.InputTokens, Window: u.ContextWindow}, &st)
	return err
}
