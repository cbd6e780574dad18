package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// recoverInto recovers the session's checkpoint (or, with fallback, the
// workspace's newest fresh one) and hands the block to the host in its
// format, for the event being answered. The checkpoint is marked
// recovered only once the output was written (SPEC §10.3).
func (c *call) recoverInto(w *workspace.Workspace, fallback bool) error {
	_, err := w.Recover(workspace.RecoverOptions{
		Session: c.session, SessionGiven: !fallback, Status: taskstate.PeekStatus(w, c.session),
		Emit: func(r *workspace.RecoverResult) error {
			return c.writeContext(r.Block)
		},
	})
	if errors.Is(err, spec.ErrNotFound) {
		return nil // nothing to recover yet: not a failure of the hook
	}
	return err
}

// hostEvents names ctxgit's events the way each host's output names
// them (hookSpecificOutput.hookEventName).
var hostEvents = map[string]map[string]string{
	"claude-code": {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "post-tool-use": "PostToolUse"},
	"codex":       {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "post-tool-use": "PostToolUse"},
	"gemini":      {"session-start": "SessionStart", "before-agent": "BeforeAgent", "after-tool": "AfterTool"},
	"qwen-code":   {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "post-tool-use": "PostToolUse"},
	"copilot":     {"session-start": "sessionStart", "user-prompt-submit": "userPromptSubmitted", "post-tool-use": "postToolUse"},
	"opencode":    {"session-start": "experimental.chat.system.transform", "post-tool-use": "tool.execute.after"},
}

// canInject reports whether the event being answered has a documented way
// to put text in front of the model (docs/HOSTS.md, "Output formats").
func (c *call) canInject() bool {
	switch c.Host {
	case "cursor":
		return c.Event == "post-tool-use" || c.Event == "session-start"
	case "openclaw":
		return c.Event == "bootstrap"
	}
	return hostEvents[c.Host][c.Event] != ""
}

// writeContext puts text into the model's context the way the host takes it on
// the event being answered (docs/HOSTS.md, "Output formats"). It never sets a
// permission or decision field: ctxgit answers no permission question.
func (c *call) writeContext(text string) error {
	if !c.canInject() {
		return fmt.Errorf("%s %s cannot put text before the model", c.Host, c.Event)
	}
	if c.kept != nil {
		c.kept.WriteString(text)
	}
	switch c.Host {
	case "claude-code", "codex", "gemini", "qwen-code":
		return writeOut(c.Out, map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": hostEvents[c.Host][c.Event], "additionalContext": text}})
	case "cursor":
		return writeOut(c.Out, map[string]any{"additional_context": text})
	case "copilot", "opencode":
		return writeOut(c.Out, map[string]any{"additionalContext": text})
	}
	if c.Write {
		// OpenClaw with no bootstrap file list to add to: the file the
		// agent's workspace bootstrap reads instead.
		root, err := c.root()
		if err != nil {
			return err
		}
		return workspace.WriteFileAtomic(filepath.Join(root, spec.RecoveryFile), []byte(text), 0o644)
	}
	_, err := io.WriteString(c.Out, text) // OpenClaw: the handler reads stdout
	return err
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
// hook called outside any workspace (a home directory, "/"), or an
// OpenClaw hook in an agent workspace never initialised, writes nothing
// there: it logs why in the user's cache directory instead (UserLogPath).
func LogError(req Request, err error) {
	var p Payload
	json.Unmarshal(req.Input, &p)
	c := &call{Request: req, p: p, dir: payloadDir(p, req.Env)}
	line := fmt.Sprintf("%s hook %s %s: %s\n", req.Env.Now().UTC().Format("2006-01-02T15:04:05Z"), req.Host, req.Event,
		safetext.Line(err.Error()))
	root, rerr := c.root()
	if rerr == nil && req.Host == "openclaw" {
		if ok, _ := c.initialized(); !ok {
			rerr = errors.New("not initialised") // no .ctxgit/ made in an agent workspace by accident
		}
	}
	if rerr != nil {
		appendLine(UserLogPath(), line)
		return
	}
	if err := workspace.PrepareLocal(root); err != nil {
		// No writing into the workspace (a symlinked .ctxgit, say): the
		// user's log gets the line and why.
		why := root
		if !strings.Contains(line, err.Error()) {
			why += ": " + safetext.Line(err.Error())
		}
		appendLine(UserLogPath(), strings.TrimSuffix(line, "\n")+" (in "+why+")\n")
		return
	}
	// The marker the status line shows until this event next succeeds.
	if data, err := json.Marshal(failure{At: req.Env.Now().UTC(), Host: req.Host, Event: req.Event}); err == nil {
		workspace.WriteLocal(root, failedPath(root, req.Host, req.Event), data, 0o644)
	}
	logLine(root, line)
}

// logLine appends line to the workspace's hook log, .ctxgit/local/ctxgit.log,
// by the file rule: a link or a FIFO a repository committed there is not
// written through (issue 32: ctxgit.log -> ~/.bashrc would have had the
// next shell run a config key), and the line goes to the user's log with
// why.
func logLine(root, line string) {
	if err := workspace.AppendLocal(root, localPath(root, "ctxgit.log"), []byte(line)); err != nil {
		appendLine(UserLogPath(), strings.TrimSuffix(line, "\n")+" (in "+root+": "+safetext.Line(err.Error())+")\n")
	}
}

// logStoreNotices logs what the call met in the store and went on
// without (a session ref skipped, a chain restarted): the hook did its
// work, so this marks no failure.
func (c *call) logStoreNotices() {
	if c.ws == nil || c.rootDir == "" {
		return
	}
	for _, n := range c.ws.StoreNotices() {
		logLine(c.rootDir, fmt.Sprintf("%s hook %s %s: note: %s\n",
			c.Env.Now().UTC().Format("2006-01-02T15:04:05Z"), c.Host, c.Event, safetext.Line(n)))
	}
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

// appendLine appends line to the user's log (UserLogPath), in the user's
// cache directory, never through a link in the log's place.
func appendLine(path, line string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := regfile.OpenAppend(path, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(line)
}

// failedDir holds one marker per host event whose last call failed: the status
// line shows that a hook is failing (docs/cli.md#statusline), `ctxgit doctor`
// says which and why.
const failedDir = hookpath.FailedDir

type failure struct {
	At    time.Time `json:"at"`
	Host  string    `json:"host"`
	Event string    `json:"event"`
}

func failedPath(root, host, event string) string {
	return hookpath.FailedPath(root, host, event)
}

// clearFailure drops the event's failure marker after a call that
// succeeded: one unlink, which finds nothing nearly always.
func (c *call) clearFailure() {
	if c.rootDir != "" {
		workspace.RemoveLocal(c.rootDir, failedPath(c.rootDir, c.Host, c.Event))
	}
}

// anyFailure reports whether some hook's last call failed.
func anyFailure(root string) bool {
	entries, err := workspace.ReadLocalDir(root, localPath(root, failedDir))
	return err == nil && len(entries) > 0
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

// Statusline answers Claude Code's status line (docs/cli.md#statusline):
// tokens = input + cache creation + cache read from current_usage, else
// used_percentage, else nothing. From pressure.gauge_from it prints the gauge;
// it also keeps the nudge marker and takes automatic checkpoints.
func Statusline(req Request) error {
	var in statusInput
	if err := json.Unmarshal(req.Input, &in); err != nil {
		return fmt.Errorf("statusline: input is not JSON: %v", err)
	}
	var p taskstate.Pressure
	if cw := in.ContextWindow; cw != nil {
		switch {
		case cw.CurrentUsage != nil && cw.Size > 0:
			u := cw.CurrentUsage
			tokens := u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens
			p = taskstate.Pressure{Value: float64(tokens) / float64(cw.Size), Known: true, Source: "host", Tokens: tokens, Window: cw.Size}
		case cw.UsedPercentage != nil:
			p = taskstate.Pressure{Value: *cw.UsedPercentage / 100, Known: true, Source: "host", Window: cw.Size}
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
	c.session = sessionKey(c.Host, c.p, req.Env)
	w, err := c.workspace()
	if err != nil {
		return err
	}
	saved, err := c.gaugeUpdate(w, p, nil)
	if err != nil {
		return err
	}
	c.clearFailure()
	marker := ""
	if anyFailure(w.Root) {
		marker = failureMarker
	}
	if p.Value < w.Config.Pressure.GaugeFrom {
		if marker != "" {
			_, err = fmt.Fprintln(c.Out, marker)
		}
		return err
	}
	note := ""
	if saved {
		note = "Checkpoint saved"
	}
	line := taskstate.GaugeLine(p, taskstate.LevelOf(w, p.Value), note)
	if marker != "" {
		line += " " + marker
	}
	_, err = fmt.Fprintln(c.Out, line)
	return err
}

// failureMarker is the status line's sign that a ctxgit hook's last call
// failed: short, and pointing at what explains it.
const failureMarker = "[ctxgit: hook failed, see ctxgit doctor]"
