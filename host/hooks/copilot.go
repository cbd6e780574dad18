package hooks

import (
	"path/filepath"

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
