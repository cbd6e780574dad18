package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// OpenClaw's agent:bootstrap fires on every agent run, and the bootstrap
// files a handler adds go into that run's system prompt only (docs.openclaw.ai
// automation/hooks/event-types, "agent:bootstrap"): an answer given once
// is gone on the next run. So what a bootstrap answered after a compaction
// (the recovery) or on a session's first run (the card, a Resumed block)
// is kept, and every later bootstrap of the session answers it again,
// until the plan moves on, the session is replaced, or the next compaction
// brings a new recovery.

// openclawAnswer is a session's kept bootstrap answer.
type openclawAnswer struct {
	Text      string    `json:"text"`
	Plan      string    `json:"plan"`                 // the plan file's SHA-256 when answered ("" if none)
	SessionID string    `json:"session_id,omitempty"` // OpenClaw's sessionId, when the event named it
	At        time.Time `json:"at"`
}

// answerPath is where the session's kept answer lives: OpenClaw's
// bootstrap answers in openclaw-bootstrap/, the others' session-start
// answers in HOST-session-start/.
func (c *call) answerPath(root string) string {
	dir := "openclaw-bootstrap"
	if c.Host != "openclaw" {
		dir = c.Host + "-session-start"
	}
	return localPath(root, dir, c.session+".json")
}

// keepsAnswer reports whether host's start event answers into one run's
// context only, so what it answered is kept and answered again: OpenClaw's
// bootstrap files, the session-start context of Qwen Code, Copilot CLI and
// opencode (processstart.go).
func keepsAnswer(host string) bool {
	return host == "openclaw" || host == "qwen-code" || host == "copilot" || host == "opencode"
}

// planHash is the SHA-256 of the workspace's plan file, "" when it cannot
// be read.
func planHash(w *workspace.Workspace) string {
	data, err := w.ReadStateFile(w.Config.Paths.Plan, workspace.MaxStateFile)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// keptAnswer is the session's kept bootstrap answer while it still holds:
// the plan unchanged and the same OpenClaw session. One that no longer
// holds is removed.
func (c *call) keptAnswer(w *workspace.Workspace) (string, bool) {
	path := c.answerPath(w.Root)
	var a openclawAnswer
	if ok, err := readJSON(w.Root, path, &a); !ok || err != nil {
		if err != nil {
			workspace.RemoveLocal(w.Root, path) // damaged: answer afresh
		}
		return "", false
	}
	if a.Text == "" || a.Plan != planHash(w) || (a.SessionID != "" && c.p.Context.SessionID != "" && a.SessionID != c.p.Context.SessionID) {
		workspace.RemoveLocal(w.Root, path)
		return "", false
	}
	return a.Text, true
}

// keepAnswer runs answer and keeps the text it put before the model
// (writeContext) as the session's kept answer (nothing written: nothing
// kept). With --write the answer is a file in the workspace, which stays.
func (c *call) keepAnswer(w *workspace.Workspace, answer func() error) error {
	if c.Write {
		return answer()
	}
	var buf strings.Builder
	c.kept = &buf
	err := answer()
	c.kept = nil
	path := c.answerPath(w.Root)
	if err != nil || buf.Len() == 0 {
		workspace.RemoveLocal(w.Root, path)
		return err
	}
	return c.writeJSON(path, openclawAnswer{Text: buf.String(), Plan: planHash(w), SessionID: c.p.Context.SessionID, At: w.Now()})
}

// dropAnswer forgets the session's kept bootstrap (OpenClaw) or
// session-start answer: a compaction brings a new one.
func (c *call) dropAnswer(root string) {
	if keepsAnswer(c.Host) {
		workspace.RemoveLocal(root, c.answerPath(root))
	}
}

// recordWindow keeps the window OpenClaw's handler read from the config,
// so the compaction checkpoint's usage has one (SPEC §6 token_usage).
func (c *call) recordWindow(w *workspace.Workspace) error {
	if c.p.ContextWindow == nil || *c.p.ContextWindow <= 0 {
		return nil
	}
	var st hookState
	readJSON(w.Root, statePath(w.Root, c.session), &st)
	if st.Window == *c.p.ContextWindow {
		return nil
	}
	st.Window = *c.p.ContextWindow
	return c.writeJSON(statePath(w.Root, c.session), st)
}

// OpenClaw's compaction events name no workspace (event-types,
// "Compaction": sessionId, counts, tokens), and one handler serves every
// workspace: each bootstrap records which repository its session key
// works in, in a small user-level file, and a compaction event finds its
// repository there.
const (
	openclawRootsFile = "openclaw-sessions.json"
	maxOpenClawRoots  = 256
)

type openclawRoot struct {
	Root string    `json:"root"`
	At   time.Time `json:"at"`
}

// openclawRootsPath is the user-level file, or "" where the platform names
// no cache directory.
func openclawRootsPath() string {
	if p := UserLogPath(); p != "" {
		return filepath.Join(filepath.Dir(p), openclawRootsFile)
	}
	return ""
}

func readOpenClawRoots(path string) map[string]openclawRoot {
	roots := map[string]openclawRoot{}
	if data, err := regfile.ReadFile(path, 1<<20); err == nil {
		json.Unmarshal(data, &roots)
	}
	return roots
}

// rememberRoot records the session key's repository, best effort; the
// oldest entries go past maxOpenClawRoots.
func (c *call) rememberRoot(root string, now time.Time) {
	path := openclawRootsPath()
	if path == "" || c.session == spec.DefaultSession {
		return
	}
	roots := readOpenClawRoots(path)
	if r, ok := roots[c.session]; ok && r.Root == root && now.Sub(r.At) < time.Hour && !now.Before(r.At) {
		return // recorded recently: no write on every run
	}
	roots[c.session] = openclawRoot{Root: root, At: now}
	if len(roots) > maxOpenClawRoots {
		keys := make([]string, 0, len(roots))
		for k := range roots {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return roots[keys[i]].At.After(roots[keys[j]].At) })
		for _, k := range keys[maxOpenClawRoots:] {
			delete(roots, k)
		}
	}
	data, err := json.Marshal(roots)
	if err != nil {
		return
	}
	workspace.WriteFileAtomic(path, data, 0o600)
}

// rememberedRoot points the call at the repository the session's last
// bootstrap recorded, when that is an initialised workspace.
func (c *call) rememberedRoot() bool {
	path := openclawRootsPath()
	if path == "" || c.Root != "" || c.Env.Getenv("CTXGIT_ROOT") != "" {
		return false
	}
	r, ok := readOpenClawRoots(path)[c.session]
	if !ok || r.Root == "" || !filepath.IsAbs(r.Root) || !exists(filepath.Join(r.Root, spec.DirName)) {
		return false
	}
	c.dir, c.rootDir = r.Root, ""
	return true
}
