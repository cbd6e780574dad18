package hooks

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/internal/regfile"
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
	if c.Event == "post-tool-use" && c.p.TranscriptPath != "" {
		copilotCatchUp(c.p.TranscriptPath, c.p.Timestamp, copilotCatchUpWait)
	}
}

// Copilot CLI writes its record behind its events: at postToolUse
// (1.0.102, a loaded machine) the file can still end before the turn's
// session.usage_record, written some 100 ms later, and the gauge would
// read the step before. Copilot records each hook's start, with the
// input the hook is given, in order after the turn's usage record:
// copilotCatchUp waits, at most wait, for the record to hold this call's
// hook.start (its input's "timestamp", the payload's). A payload without
// a timestamp in ms is read with the record as it is.
const copilotCatchUpWait = 1500 * time.Millisecond

// copilotCatchUpTail is how much of the record's end copilotCatchUp reads.
const copilotCatchUpTail = 256 << 10

func copilotCatchUp(path string, stamp []byte, wait time.Duration) {
	if len(stamp) == 0 || len(stamp) > 20 || strings.Trim(string(stamp), "0123456789") != "" {
		return
	}
	want := append([]byte(`"timestamp":`), stamp...)
	deadline := time.Now().Add(wait)
	for {
		tail, err := regfile.ReadTail(path, copilotCatchUpTail)
		if err != nil || hasStamp(tail, want) || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasStamp reports whether the record's tail holds want followed by the
// end of the number.
func hasStamp(tail, want []byte) bool {
	for {
		i := bytes.Index(tail, want)
		if i < 0 {
			return false
		}
		tail = tail[i+len(want):]
		if len(tail) > 0 && (tail[0] < '0' || tail[0] > '9') {
			return true
		}
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
