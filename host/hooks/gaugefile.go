package hooks

import (
	"encoding/json"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/workspace"
)

// keepGaugeFile writes what ctxgit-hook needs of the config to answer a
// tool call's reading itself (hookpath.GaugeConfig), when it is missing
// or out of date. Only a call ctxgit-hook handed over does this
// (hookpath.ViaEnv): a `ctxgit hook` the host runs itself reads the
// config anyway. Best effort: without the file, ctxgit-hook hands every
// reading over, which is slower and no less right.
func (c *call) keepGaugeFile() {
	if c.Env.Getenv(hookpath.ViaEnv) == "" || !hookpath.ToolEvent(c.Host, c.Event) {
		return
	}
	root, err := c.root()
	if err != nil {
		return
	}
	if _, ok := hookpath.ReadGaugeConfig(root); ok {
		return
	}
	size, mod, err := hookpath.ConfigStamp(root)
	if err != nil {
		return
	}
	w, err := c.workspace()
	if err != nil {
		return
	}
	t := w.Config.Pressure
	g := hookpath.GaugeConfig{ConfigSize: size, ConfigModNanos: mod,
		Flush: t.Flush, AutoCheckpoint: t.AutoCheckpoint, MinGrowth: t.MinGrowth}
	// The config changed while it was read: the next call tries again.
	if s2, m2, err := hookpath.ConfigStamp(root); err != nil || s2 != size || m2 != mod {
		return
	}
	data, err := json.Marshal(g)
	if err != nil || workspace.PrepareLocal(root) != nil {
		return
	}
	workspace.WriteLocal(root, hookpath.GaugeFile(root), append(data, '\n'), 0o644)
}
