package workspace

import (
	"errors"

	"github.com/ctxgit/ctxgit/spec"
)

// checkConfigPaths refuses, as the config loads, a state path it sets that
// the file rule (files.go) would refuse at every read and write: a name
// matching a default secret pattern (`paths.failure_log: .env` would put
// the secret in every checkpoint), or a path that a symbolic link on the
// way leads outside the workspace, into .git or under .ctxgit/local/
// (SPEC §3.4, §11). A path left at its default is checked where it is
// read or written, so a workspace without such settings pays nothing here.
func (w *Workspace) checkConfigPaths(src []byte) error {
	p, def := w.Config.Paths, spec.DefaultConfig().Paths
	for _, f := range []struct{ key, v, def string }{
		{"plan", p.Plan, def.Plan}, {"failure_log", p.FailureLog, def.FailureLog},
		{"failure_log_fallback", p.FailureLogFallback, def.FailureLogFallback}, {"decisions", p.Decisions, def.Decisions},
		{"task_state", p.TaskState, def.TaskState}, {"summaries", p.Summaries, def.Summaries},
		{"self_model", p.SelfModel, def.SelfModel}, {"env_model", p.EnvModel, def.EnvModel},
	} {
		if f.v == f.def {
			continue
		}
		key := "paths." + f.key
		if pat := secretPattern(defaultSecrets(), f.v); pat != "" {
			return spec.InvalidAt(spec.ConfigPath, spec.KeyLine(src, key),
				"%s: %q matches the secret pattern %q: state files go into every checkpoint", key, f.v, pat)
		}
		if _, err := w.resolveState(f.v, "used"); errors.Is(err, ErrRefused) {
			return spec.InvalidAt(spec.ConfigPath, spec.KeyLine(src, key), "%s: %v", key, err)
		}
	}
	return nil
}
