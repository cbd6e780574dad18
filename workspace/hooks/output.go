package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// recoverInto recovers the session's checkpoint (or, with fallback, the
// workspace's newest fresh one) and hands the block to the host in its
// format. The checkpoint is marked recovered only once the output was
// written (SPEC §10.3).
func (c *call) recoverInto(w *workspace.Workspace, fallback bool, event string) error {
	_, err := w.Recover(workspace.RecoverOptions{
		Session: c.session, SessionGiven: !fallback, Status: w.PeekStatus(c.session),
		Write: c.Host == "openclaw" && c.Write,
		Emit: func(r *workspace.RecoverResult) error {
			if r.Wrote != "" {
				return nil
			}
			return c.writeContext(r.Block, event)
		},
	})
	if errors.Is(err, spec.ErrNotFound) {
		return nil // nothing to recover yet: not a failure of the hook
	}
	return err
}

// writeContext puts text into the model's context the way the host takes
// it (SPEC §15.2.1).
func (c *call) writeContext(text, event string) error {
	switch c.Host {
	case "claude-code", "codex", "gemini":
		return writeOut(c.Out, map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": event, "additionalContext": text}})
	case "cursor":
		return writeOut(c.Out, map[string]any{"additional_context": text})
	}
	_, err := io.WriteString(c.Out, text) // OpenClaw: the handler reads stdout
	return err
}

// writeNudge asks the agent to save state, allowing the tool call.
func (c *call) writeNudge(pct float64) error {
	text := fmt.Sprintf(NudgeText, pct)
	switch c.Host {
	case "cursor":
		return writeOut(c.Out, map[string]any{"permission": "allow", "agent_message": text})
	case "gemini":
		return writeOut(c.Out, map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "AfterTool", "additionalContext": text}})
	}
	return writeOut(c.Out, map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "allow", "additionalContext": text}})
}

func writeOut(out io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = out.Write(append(data, '\n'))
	return err
}

// LogError records a failed hook in the workspace's machine-local log, one
// line, best effort: a hook's own failure must never reach its host. A
// hook called outside any workspace (a home directory, "/") writes
// nothing there: it logs why in the user's cache directory instead
// (UserLogPath).
func LogError(req Request, err error) {
	var p Payload
	json.Unmarshal(req.Input, &p)
	c := &call{Request: req, p: p, dir: payloadDir(p, req.Env)}
	line := fmt.Sprintf("%s hook %s %s: %s\n", req.Env.Now().UTC().Format("2006-01-02T15:04:05Z"), req.Host, req.Event,
		safetext.Line(err.Error()))
	root, rerr := c.root()
	if rerr != nil {
		appendLine(UserLogPath(), line)
		return
	}
	if err := workspace.PrepareLocal(root); err != nil {
		return
	}
	appendLine(localPath(root, "ctxgit.log"), line)
}

// UserLogPath is where hooks called outside any workspace log: ctxgit.log
// in ctxgit's folder of the user's cache directory, or "" when the
// platform names none.
func UserLogPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctxgit", "ctxgit.log")
}

func appendLine(path, line string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(line)
}

// statusInput is Claude Code's status-line JSON, the parts ctxgit reads.
type statusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Workspace      struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	ContextWindow *struct {
		Size           int64    `json:"context_window_size"`
		UsedPercentage *float64 `json:"used_percentage"`
		CurrentUsage   *struct {
			InputTokens         int64 `json:"input_tokens"`
			CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"current_usage"`
	} `json:"context_window"`
}

// Statusline answers Claude Code's status line (SPEC §15.4): tokens =
// input + cache creation + cache read from current_usage, else
// used_percentage, else nothing. From pressure.gauge_from it prints the
// gauge; it also keeps the nudge marker and takes automatic checkpoints.
func Statusline(req Request) error {
	var in statusInput
	if err := json.Unmarshal(req.Input, &in); err != nil {
		return fmt.Errorf("statusline: input is not JSON: %v", err)
	}
	var p workspace.Pressure
	if cw := in.ContextWindow; cw != nil {
		switch {
		case cw.CurrentUsage != nil && cw.Size > 0:
			u := cw.CurrentUsage
			tokens := u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens
			p = workspace.Pressure{Value: float64(tokens) / float64(cw.Size), Known: true, Source: "host", Tokens: tokens, Window: cw.Size}
		case cw.UsedPercentage != nil:
			p = workspace.Pressure{Value: *cw.UsedPercentage / 100, Known: true, Source: "host", Window: cw.Size}
		}
	}
	if !p.Known {
		return nil // right after compaction the host reports nothing yet
	}
	cwd := in.Cwd
	for _, d := range []string{in.Workspace.ProjectDir, in.Workspace.CurrentDir} {
		if cwd == "" {
			cwd = d
		}
	}
	c := &call{Request: req, p: Payload{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: cwd}}
	c.dir = payloadDir(c.p, req.Env)
	c.Host = "claude-code"
	c.session = sessionKey(c.p, req.Env)
	w, err := c.workspace()
	if err != nil {
		return err
	}
	saved, err := c.gaugeUpdate(w, p)
	if err != nil {
		return err
	}
	if p.Value < w.Config.Pressure.GaugeFrom {
		return nil
	}
	note := ""
	if saved {
		note = "Checkpoint saved"
	}
	_, err = fmt.Fprintln(c.Out, workspace.GaugeLine(p, w.Level(p.Value), note))
	return err
}
