package hooks

import (
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/hookpath"
)

// GitHub Copilot CLI keeps each session's record in
// $COPILOT_HOME/session-state/SESSION/events.jsonl (default ~/.copilot;
// docs.github.com copilot-cli configure-copilot-cli, "COPILOT_HOME"), and
// names it in its preCompact and agentStop payloads only (transcriptPath).
// Its other events carry the session id, from which the path is made:
// only an id that is one plain name (letters, digits, '-'), so a payload
// cannot point the reading anywhere else.

// copilotPayload completes a Copilot CLI payload: its transcript path, the
// one it names or else the session's events.jsonl.
func (c *call) copilotPayload() {
	if c.p.TranscriptPath == "" {
		c.p.TranscriptPath = c.p.TranscriptPathCamel
	}
	if c.p.TranscriptPath == "" {
		c.p.TranscriptPath = copilotEventsPath(c.Env.Getenv, c.p.SessionIDCamel)
	}
}

// Copilot CLI writes its record behind its events: at postToolUse
// (1.0.102, a loaded machine) the file can still end before the turn's
// session.usage_record, written some 100 ms later, and the gauge would
// read the step before. Copilot records each hook's start, with the input
// the hook is given, after the turn's usage record: copilotMark is that
// line's "timestamp" (the payload's, in ms), which the gauge waits for
// (awaitCall); "" for any other event or a payload without one.
func (c *call) copilotMark() string {
	stamp := string(c.p.Timestamp)
	if c.Host != "copilot" || c.Event != "post-tool-use" || stamp == "" || len(stamp) > 20 || strings.Trim(stamp, "0123456789") != "" {
		return ""
	}
	return `"timestamp":` + stamp
}

// copilotEventsPath is session id's events.jsonl, "" when id is not a
// plain name or no home is known.
func copilotEventsPath(getenv func(string) string, id string) string {
	if !hookpath.PlainKey(id) {
		return ""
	}
	home := hookpath.HostHome(getenv, "COPILOT_HOME", ".copilot")
	if home == "" {
		return ""
	}
	return filepath.Join(home, "session-state", id, "events.jsonl")
}
