// Package hookpath is the part of the tool-call hooks' steady state that
// needs nothing but the standard library: where the hooks' markers live,
// which Cursor releases take postToolUse context, and Steady, which tells
// a tool call that has nothing to do. Both `ctxgit hook` (host/hooks) and
// the small `ctxgit-hook` binary (cmd/ctxgit-hook) use it, so there is one
// implementation; it must link nothing heavy and do no package-level work
// (docs/PERFORMANCE.md, "The tool-call hook's own binary"). TestHookBinaryDeps keeps it so.
package hookpath

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
)

// Paths as in package spec (spec.DirName, spec.LocalDir, spec.ConfigPath),
// which this package cannot import without yaml.v3; host/hooks' tests
// check they agree.
const (
	DirName    = ".ctxgit"
	LocalDir   = ".ctxgit/local"
	ConfigName = "config.yaml"
	FailedDir  = "hook-failed"
	HookRanDir = "hooks-ran"
)

// LocalPath is a machine-local file of the workspace at root.
func LocalPath(root string, parts ...string) string {
	return filepath.Join(append([]string{root, filepath.FromSlash(LocalDir)}, parts...)...)
}

// NudgePath is session's nudge marker.
func NudgePath(root, session string) string { return LocalPath(root, "nudge", session+".json") }

// PendingPath is session's pending-recovery marker.
func PendingPath(root, session string) string { return LocalPath(root, "pending", session) }

// FailedPath is the marker of host's event whose last call failed.
func FailedPath(root, host, event string) string {
	return LocalPath(root, FailedDir, host+"-"+event+".json")
}

// HookRanPath records that host's hook for event ran in the workspace.
func HookRanPath(root, host, event string) string {
	return LocalPath(root, HookRanDir, host+"."+event)
}

// CursorContextFloor is the first Cursor release taken to pass postToolUse
// additional_context to the model (docs/HOSTS.md, "Cursor"): the IDE's
// 3.x numbering, and the CLI's date numbering (cursor-agent 2026.10.01).
var CursorContextFloor = [...][3]int{{3, 8, 0}, {2026, 10, 1}}

// CursorAfterToolContext reports whether a Cursor release (the payload's
// cursor_version) passes postToolUse additional_context to the model. A
// payload without a version, or one that does not parse, is taken to.
func CursorAfterToolContext(version string) bool {
	v, ok := parseVersion(version)
	if !ok {
		return true
	}
	floor := CursorContextFloor[0]
	if v[0] >= 2000 {
		floor = CursorContextFloor[1]
	}
	for i := range v {
		if v[i] != floor[i] {
			return v[i] > floor[i]
		}
	}
	return true
}

// parseVersion reads "MAJOR.MINOR[.PATCH]" with an optional suffix
// ("3.8.1-nightly").
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	s, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimSpace(s), "v"), "-")
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// payload is what Steady reads of a tool-call payload (host/hooks.Payload).
type payload struct {
	SessionID      string   `json:"session_id"`
	ConversationID string   `json:"conversation_id"`
	SessionKey     string   `json:"sessionKey"`
	CursorVersion  string   `json:"cursor_version"`
	Cwd            string   `json:"cwd"`
	WorkspaceRoots []string `json:"workspace_roots"`
	TranscriptPath string   `json:"transcript_path"`
	Trigger        string   `json:"trigger"`
	ToolUseID      string   `json:"tool_use_id"`
	AgentID        string   `json:"agent_id"`
}

// session is the payload's session key as host/hooks' sessionKey picks
// it, and whether it is one PlainKey is sure of.
func (p *payload) session(host string) (string, bool) {
	ids := []string{p.SessionID, p.ConversationID, p.SessionKey}
	if host == "cursor" {
		ids = []string{p.ConversationID, p.SessionID}
	}
	for _, id := range ids {
		if id != "" {
			return id, PlainKey(id)
		}
	}
	return "", false // CTXGIT_SESSION or the default: ctxgit hook decides
}

// Steady reports whether `ctxgit hook HOST EVENT` with this input, in the
// process directory cwd under getenv, at time now, would do nothing at
// all: no output, no file written or removed, nothing logged. It answers
// true only when it is sure; anything it does not know (a host or event
// it does not handle, an environment that changes where the workspace
// is, a marker, a reading that crosses a threshold or is due to be
// recorded, any error) is false, and the caller runs `ctxgit hook`.
//
// The events it answers are the ones that fire on every tool call
// (ToolEvent): Cursor's postToolUse, Claude Code's and Codex's
// PostToolUse and Gemini CLI's AfterTool, and Gemini CLI's PreCompress,
// which fires before every model request. Every one of them costs
// nothing when the workspace has no failure marker for the event, has
// recorded the event as run, and (per host) holds no marker the event
// acts on (host/hooks afterTool, preCompress and Handle); the transcript
// hosts' tool calls also take a reading (steadyReading).
func Steady(host, event string, input []byte, getenv func(string) string, cwd string, now time.Time) bool {
	if !ToolEvent(host, event) {
		return false
	}
	// These change where the workspace is found, or what a hook logs.
	for _, v := range []string{"CTXGIT_ROOT", "GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if getenv(v) != "" {
			return false
		}
	}
	var p payload
	if json.Unmarshal(input, &p) != nil {
		return false
	}
	session, ok := p.session(host)
	if !ok {
		return false
	}
	dir := p.Cwd
	if dir == "" && len(p.WorkspaceRoots) > 0 {
		dir = p.WorkspaceRoots[0]
	}
	if dir == "" {
		dir = cwd
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	root, ok := findRoot(dir)
	if !ok {
		return false
	}
	if !localDirs(root, host) {
		return false
	}
	if exists(FailedPath(root, host, event)) || !exists(HookRanPath(root, host, event)) {
		return false
	}
	switch host {
	case "cursor":
		if !CursorAfterToolContext(p.CursorVersion) {
			return true // this release drops the context: nothing is delivered
		}
		return !exists(PendingPath(root, session)) && !exists(NudgePath(root, session))
	case "gemini":
		// A due or candidate compression is settled by ctxgit hook.
		if exists(CompressPath(root, session)) {
			return false
		}
		if event == "pre-compress" {
			return p.Trigger != "manual"
		}
		if exists(PendingPath(root, session)) {
			return false
		}
	}
	call := AwaitedCall(host, event, p.ToolUseID, p.AgentID)
	return steadyReading(host, root, session, p.TranscriptPath, call, now) && nudgeDelivered(root, session)
}

// ToolEvent reports whether host's event fires on every tool call (or,
// for Gemini CLI's PreCompress, every model request): the events
// ctxgit-hook answers and `ctxgit init --host` installs it for.
func ToolEvent(host, event string) bool {
	switch host {
	case "claude-code", "codex", "cursor":
		return event == "post-tool-use"
	case "gemini":
		return event == "after-tool" || event == "pre-compress"
	}
	return false
}

// CompressPath is Gemini CLI session's compression marker (host/hooks
// compressPath).
func CompressPath(root, session string) string { return LocalPath(root, "compress", session+".json") }

// nudgeDelivered reports whether session has no nudge marker or one
// already delivered: deliverNudge has nothing to do.
func nudgeDelivered(root, session string) bool {
	data, err := regfile.ReadFile(NudgePath(root, session), maxMarker)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	var m struct {
		Flushed bool `json:"flushed"`
	}
	return err == nil && json.Unmarshal(data, &m) == nil && m.Flushed
}

// PlainKey reports whether id is a session key as it stands, certainly:
// letters, digits and '-', starting with a letter or digit, at most 100
// bytes (spec.MaxSessionKeyLen). Every such id passes
// spec.ValidateSessionKey; anything else goes to `ctxgit hook`.
func PlainKey(id string) bool {
	if id == "" || len(id) > 100 || !alnum(id[0]) {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !alnum(id[i]) && id[i] != '-' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// findRoot finds the workspace whose .ctxgit/ holds a config, upward from
// dir, stopping at the first directory holding .git: the repository's top,
// where workspace.FindRoot stops too. A .ctxgit/ without a config, or no
// .ctxgit/ at all, is not a case it decides.
func findRoot(dir string) (string, bool) {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, DirName, ConfigName)); err == nil && fi.Mode().IsRegular() {
			return d, true
		}
		if _, err := os.Lstat(filepath.Join(d, DirName)); err == nil {
			return "", false
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// exists reports whether anything is at a marker's place, a link
// included (never followed).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// HostHome is a host's folder of its own: the one the environment
// variable envVar names (CODEX_HOME, COPILOT_HOME), else dot under the
// user's home (HOME, else USERPROFILE); "" when no home is known.
func HostHome(getenv func(string) string, envVar, dot string) string {
	if home := getenv(envVar); home != "" {
		return home
	}
	h := getenv("HOME")
	if h == "" {
		h = getenv("USERPROFILE")
	}
	if h == "" {
		return ""
	}
	return filepath.Join(h, dot)
}

// localDirs reports whether the directories Steady reads host's markers
// from are the workspace's own: .ctxgit/, .ctxgit/local/ and each marker
// directory a directory, not a symbolic link, or missing (SPEC §3.4, no
// link under .ctxgit/local/). Anything else is `ctxgit hook`'s to refuse
// and log. One lstat each: six (Cursor) to nine (Gemini CLI) a tool call,
// microseconds against the process start's milliseconds, and the rule's
// whole cost on this path; the markers' no-follow, non-blocking, bounded
// opens cost what the opens they replace did.
func localDirs(root, host string) bool {
	if regfile.Dirs(root, LocalDir+"/x", false) != nil {
		return false
	}
	local := filepath.Join(root, filepath.FromSlash(LocalDir))
	subs := []string{FailedDir, HookRanDir}
	switch host {
	case "cursor":
		subs = append(subs, "pending", "nudge")
	case "gemini":
		subs = append(subs, "compress", "pending", "hooks", "readings", "nudge")
	default:
		subs = append(subs, "hooks", "readings", "nudge")
	}
	for _, d := range subs {
		if regfile.Dirs(local, d+"/x", false) != nil {
			return false
		}
	}
	return true
}
