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
// (else the one recorded for the session), as a checkpoint records it.
func (c *call) payloadUsage(root string) (spec.TokenUsage, bool) {
	t := c.p.Tokens
	if c.Host != "opencode" || t == nil {
		return spec.TokenUsage{}, false
	}
	used := t.Input + t.Cache.Read + t.Cache.Write
	if used <= 0 {
		return spec.TokenUsage{}, false
	}
	window := c.knownWindow(root)
	if c.p.ContextWindow != nil && *c.p.ContextWindow > 0 {
		window = *c.p.ContextWindow
	}
	return spec.TokenUsage{InputTokens: used, ContextWindow: window, Utilization: float64(used) / float64(window), Source: "host"}, true
}

// gaugeFromPayload takes the reading the plugin passed (opencode's only
// source of usage): recorded, and past pressure.flush a nudge for this
// tool call's output.
func (c *call) gaugeFromPayload() error {
	root, err := c.root()
	if err != nil {
		return err
	}
	u, ok := c.payloadUsage(root)
	if !ok {
		return nil
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	_, err = c.gaugeUpdate(w, taskstate.Pressure{Value: u.Utilization, Known: true, Source: "host", Tokens: u.InputTokens, Window: u.ContextWindow}, nil)
	return err
}
