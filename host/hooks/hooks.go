// Package hooks answers agent hosts' hook calls (docs/cli.md#hook): it maps a
// host's event onto checkpoint, recovery, the context gauge and the flush
// nudge, and answers in that host's output format.
//
// Hooks fail open: the caller turns any error into a log line and exit 0
// with no output, so a hook never blocks or breaks its host by accident.
package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// Hosts and the events ctxgit answers (docs/HOSTS.md, "Events"): each one does
// work for that host, and `ctxgit init --host` installs exactly these.
var Events = map[string][]string{
	"claude-code": {"session-start", "pre-compact", "post-tool-use", "user-prompt-submit", "session-end"},
	"codex":       {"session-start", "pre-compact", "post-tool-use", "user-prompt-submit", "session-end"},
	"gemini":      {"session-start", "pre-compress", "before-agent", "after-tool"},
	"cursor":      {"session-start", "pre-compact", "post-tool-use"},
	"openclaw":    {"bootstrap", "compact-before", "compact-after"},
	"qwen-code":   {"session-start", "pre-compact", "post-tool-use", "user-prompt-submit", "stop", "session-end"},
	"copilot":     {"session-start", "user-prompt-submit", "post-tool-use", "pre-compact", "session-end"},
	"opencode":    {"session-start", "pre-compact", "post-tool-use"},
}

// retiredEvents were installed by earlier versions and did nothing useful
// (or, for pre-tool-use, answered a permission question). A config not yet
// upgraded by `ctxgit init --host` still calls them: they answer nothing,
// and are not logged as errors.
var retiredEvents = map[string][]string{
	"claude-code": {"pre-tool-use", "post-compact", "stop"},
	"codex":       {"pre-tool-use", "post-compact"},
	"cursor":      {"pre-tool-use"},
}

// Retired reports whether event is one ctxgit no longer installs for host.
func Retired(host, event string) bool {
	for _, e := range retiredEvents[host] {
		if e == event {
			return true
		}
	}
	return false
}

// Payload is the union of the fields ctxgit reads from any host's hook
// JSON; everything else is ignored.
type Payload struct {
	SessionID      string `json:"session_id"`
	SessionIDCamel string `json:"sessionId"`       // Copilot CLI (camelCase events)
	ConversationID string `json:"conversation_id"` // Cursor: the stable key
	CursorVersion  string `json:"cursor_version"`  // Cursor
	SessionKey     string `json:"sessionKey"`      // OpenClaw
	TokenCount     *int64 `json:"tokenCount"`      // OpenClaw session:compact:before
	SessionFile    string `json:"sessionFile"`     // OpenClaw: the session's transcript
	ContextWindow  *int64 `json:"contextWindow"`   // OpenClaw: the model's window, from its config
	TranscriptPath string `json:"transcript_path"`
	// Copilot CLI names its events.jsonl on preCompact and agentStop only.
	TranscriptPathCamel string `json:"transcriptPath"`
	// Copilot CLI: the event's time in ms, which its record's hook.start
	// line repeats (raw: other hosts' timestamps are other shapes).
	Timestamp      json.RawMessage `json:"timestamp"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"` // Cursor
	Source         string          `json:"source"`          // SessionStart: startup|resume|clear|compact
	Trigger        string          `json:"trigger"`         // PreCompact: manual|auto
	Prompt         string          `json:"prompt"`          // UserPromptSubmit, Gemini BeforeAgent
	ToolName       string          `json:"tool_name"`
	ToolUseID      string          `json:"tool_use_id"` // Claude Code, Codex: the call a tool hook answers
	AgentID        string          `json:"agent_id"`    // Claude Code: set on a subagent's calls
	// Cursor's preCompact reports usage itself.
	ContextUsagePercent *float64 `json:"context_usage_percent"`
	ContextTokens       *int64   `json:"context_tokens"`
	ContextWindowSize   *int64   `json:"context_window_size"`
	// ctxgit's opencode plugin passes the session's newest usage.
	Tokens *openCodeTokens `json:"tokens"`
	// Qwen Code's Stop reports the context it used and its window.
	ContextUsage *float64 `json:"context_usage"`
	ContextLimit *int64   `json:"context_limit"`
	InputTokens  *int64   `json:"input_tokens"`
	Context      struct {
		WorkspaceDir string `json:"workspaceDir"`
		SessionID    string `json:"sessionId"`
		TokenCount   *int64 `json:"tokenCount"`
		SessionFile  string `json:"sessionFile"`
	} `json:"context"` // OpenClaw
}

// Request is one hook call.
type Request struct {
	Host, Event string
	Input       []byte // the host's JSON
	Env         workspace.Env
	Root        string // --root, if given
	Write       bool   // OpenClaw: write CONTEXT_RECOVERY.md instead of printing
	Out         io.Writer
	// Spawn starts `ctxgit ARGS...` detached (package internal/detach):
	// work that may outlast the host's budget runs there. Nil, or
	// CTXGIT_HOOK_DETACH=0, runs it inline.
	Spawn func(args []string) error
	// Job names the job file when this process is such a detached child.
	Job string
	// CallWait bounds the wait for a tool call's message (awaitCall);
	// 0 is callWait.
	CallWait time.Duration
}

// ReadInput reads a hook's stdin, refusing more than a hook payload can
// reasonably be, or a payload not finished within a short wait.
func ReadInput(r io.Reader) ([]byte, error) { return hookpath.ReadInput(r) }

// call is a parsed request with its workspace resolved lazily.
type call struct {
	Request
	p       Payload
	session string
	dir     string
	rootDir string // found once: discovery is most of a no-op call
	ws      *workspace.Workspace
	// kept, while set, receives the text written before the model, to
	// keep as the session's answer (keepAnswer).
	kept *strings.Builder
}

// Handle answers one hook call. Errors are the caller's to log; output is
// written only when the call succeeds up to the point of writing it.
func Handle(req Request) error {
	valid := false
	for _, e := range Events[req.Host] {
		valid = valid || e == req.Event
	}
	if Retired(req.Host, req.Event) {
		return nil // an old install's entry: nothing to do, nothing to say
	}
	if !valid {
		return fmt.Errorf("unknown hook %s %s", req.Host, req.Event)
	}
	c := &call{Request: req}
	if req.Job != "" {
		return c.runJob()
	}
	if len(strings.TrimSpace(string(req.Input))) == 0 {
		return fmt.Errorf("%s %s: empty input", req.Host, req.Event)
	}
	if err := json.Unmarshal(req.Input, &c.p); err != nil {
		return fmt.Errorf("%s %s: input is not JSON: %v", req.Host, req.Event, err)
	}
	c.session = sessionKey(req.Host, c.p, req.Env)
	c.dir = payloadDir(c.p, req.Env)
	err := c.handle()
	c.logStoreNotices()
	if err == nil {
		c.clearFailure()
		if root, rerr := c.root(); rerr == nil {
			workspace.MarkHookRan(root, c.Host, c.Event)
		}
		c.keepGaugeFile()
	}
	return err
}

func (c *call) handle() error {
	if c.Host == "copilot" {
		c.copilotPayload()
	}
	if c.Host == "openclaw" {
		c.openclawPayload()
		ok, err := c.initialized()
		if (err != nil || !ok) && c.Event != "bootstrap" && c.rememberedRoot() {
			// A compaction event names no workspace: the session's last
			// bootstrap recorded its repository.
			ok, err = c.initialized()
		}
		if !ok || err != nil {
			// One handler serves every agent workspace: one that is no
			// ctxgit workspace gets nothing from it, no .ctxgit/ and no
			// log line on every run.
			return nil
		}
	}
	return c.dispatch()
}

// openclawPayload completes an OpenClaw event: its token count and its
// session file, at the top level or in its context.
func (c *call) openclawPayload() {
	if c.p.TokenCount == nil {
		c.p.TokenCount = c.p.Context.TokenCount
	}
	for _, f := range []string{c.p.TranscriptPath, c.p.SessionFile, c.p.Context.SessionFile} {
		if c.p.TranscriptPath == "" {
			c.p.TranscriptPath = f
		}
	}
}

// initialized reports whether the call's workspace has a .ctxgit/ (or
// --root/CTXGIT_ROOT named one explicitly).
func (c *call) initialized() (bool, error) {
	root, err := c.root()
	if err != nil {
		return false, err
	}
	return c.Root != "" || c.Env.Getenv("CTXGIT_ROOT") != "" || exists(filepath.Join(root, spec.DirName)), nil
}

// payloadDir is the directory a payload names: cwd, Cursor's first
// workspace root, else the process's. OpenClaw's context.workspaceDir is
// the agent's workspace, which may not be the repository: its handler
// runs ctxgit in the repository instead, so the process's directory is
// the one.
func payloadDir(p Payload, env workspace.Env) string {
	dir := p.Cwd
	switch {
	case dir == "" && len(p.WorkspaceRoots) > 0:
		dir = p.WorkspaceRoots[0]
	case dir == "":
		dir = env.Cwd
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Cwd, dir)
	}
	return dir
}

// sessionKey is the host's session id (Cursor's conversation_id first), sanitized; else CTXGIT_SESSION;
// else the default.
func sessionKey(host string, p Payload, env workspace.Env) string {
	ids := []string{p.SessionID, p.ConversationID, p.SessionKey}
	if host == "copilot" {
		ids = []string{p.SessionIDCamel, p.SessionID}
	}
	if host == "cursor" {
		// conversation_id is the same for every event of a Cursor
		// conversation; a session_id some events carry is not the key
		// its other events name.
		ids = []string{p.ConversationID, p.SessionID}
	}
	for _, id := range ids {
		if id != "" {
			return spec.SanitizeSessionKey(id)
		}
	}
	if s := env.Getenv("CTXGIT_SESSION"); spec.ValidateSessionKey(s) == nil {
		return s
	}
	return spec.DefaultSession
}

// root finds the workspace root without opening it: the hot path (a
// pre-tool-use with nothing to do) only needs to stat a marker.
func (c *call) root() (string, error) {
	if c.rootDir != "" {
		return c.rootDir, nil
	}
	env := c.Env
	env.Cwd = c.dir
	root, err := workspace.FindRoot(env, c.Root)
	c.rootDir = root
	return root, err
}

// workspace opens the workspace (config included), once.
func (c *call) workspace() (*workspace.Workspace, error) {
	if c.ws != nil {
		return c.ws, nil
	}
	root, err := c.root()
	if err != nil {
		return nil, err
	}
	c.ws, err = workspace.Open(c.Env, root)
	if err == nil && c.Job == "" && time.Duration(c.ws.Config.Lock.Timeout) > hookLockWait {
		// Hooks answer inside the host's timeout (5 s for tool hooks):
		// rather give up on a busy workspace, and log it, than be killed.
		c.ws.Config.Lock.Timeout = spec.Duration(hookLockWait)
	}
	return c.ws, err
}

// lockedWorkspace opens the workspace and takes its lock; unlock releases
// it.
func (c *call) lockedWorkspace() (w *workspace.Workspace, unlock func(), err error) {
	if w, err = c.workspace(); err != nil {
		return nil, nil, err
	}
	lock, err := w.Lock()
	if err != nil {
		return nil, nil, err
	}
	return w, func() { lock.Unlock() }, nil
}

// hookLockWait bounds how long a hook waits for the workspace lock.
const hookLockWait = 2 * time.Second

func (c *call) dispatch() error {
	switch c.Event {
	case "session-start":
		return c.sessionStart()
	case "pre-compact", "compact-before":
		return c.preCompact()
	case "pre-compress":
		return c.preCompress()
	case "compact-after":
		return c.postCompact()
	case "post-tool-use", "after-tool":
		return c.afterTool()
	case "user-prompt-submit", "before-agent":
		return c.promptSubmit()
	case "bootstrap":
		return c.bootstrap()
	case "stop":
		return c.qwenStop()
	case "session-end":
		w, err := c.workspace()
		if err != nil {
			return err
		}
		// The person's own commands no longer land in the session
		// that ended; its last checkpoint names it explicitly.
		workspace.EndCurrentSession(w.Root, c.session)
		if c.sessionEndInline() {
			_, err := w.Checkpoint(c.checkpointOptions(w, spec.TriggerSessionEnd, false))
			return err
		}
		return c.deferCheckpoint(w, spec.TriggerSessionEnd)
	}
	return nil
}

// sessionEndBudget is the SessionEnd timeout ctxgit installs for Claude
// Code (host/config), and inlineSessionEnd the least budget in which the
// session's last checkpoint is taken before the hook returns.
const (
	sessionEndBudget = 30 * time.Second
	inlineSessionEnd = 10 * time.Second
)

// sessionEndInline reports whether Claude Code's SessionEnd leaves time to
// checkpoint inline, so the checkpoint has landed when the host exits and a
// `claude -c` right after finds it. The host's budget is the largest
// `timeout` among the SessionEnd entries (at least 1.5 s, at most 60 s), or
// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS when set (docs/HOSTS.md, "Claude
// Code"); ctxgit's entry says 30 s. Other hosts, and a budget set short,
// checkpoint in a detached child.
func (c *call) sessionEndInline() bool {
	if c.Host != "claude-code" {
		return false
	}
	budget := sessionEndBudget
	if v := c.Env.Getenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"); v != "" {
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || ms <= 0 {
			return false
		}
		budget = time.Duration(ms) * time.Millisecond
	}
	return budget >= inlineSessionEnd
}

// transcriptFormat is the transcript reader for a host, if ctxgit has one.
func transcriptFormat(host string) (transcript.Format, bool) {
	switch host {
	case "claude-code":
		return transcript.ClaudeCode, true
	case "codex":
		return transcript.Codex, true
	case "openclaw":
		return transcript.OpenClaw, true
	case "gemini":
		return transcript.Gemini, true
	case "qwen-code":
		return transcript.QwenCode, true
	case "copilot":
		return transcript.Copilot, true
	case "opencode":
		return transcript.OpenCode, true
	}
	return "", false
}

// localPath is a machine-local file of the workspace at root.
func localPath(root string, parts ...string) string { return hookpath.LocalPath(root, parts...) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
