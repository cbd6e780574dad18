package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// currentSessionFile is the machine-local record of the host session a
// hook last saw in this workspace (SPEC §6.3): the agent's own ctxgit
// calls, which name no session, land in it.
const currentSessionFile = "current-session.json"

// currentSessionTTL bounds how long the record speaks for a session: a
// person typing ctxgit a day after the agent stopped is not in its session.
const currentSessionTTL = 12 * time.Hour

// CurrentSession is the record's content.
type CurrentSession struct {
	Session string    `json:"session"`
	Host    string    `json:"host"`
	At      time.Time `json:"at"`
}

// RecordCurrentSession writes the record under root's .ctxgit/local/,
// atomically; unchanged within a minute, it is left alone (hooks call it
// often, and the record must not cost a write each time).
func RecordCurrentSession(root, session, host string, now time.Time) error {
	if session == "" || session == spec.DefaultSession {
		return nil
	}
	path := filepath.Join(root, filepath.FromSlash(spec.LocalDir), currentSessionFile)
	if cur, ok := readCurrentSession(path); ok && cur.Session == session && cur.Host == host && now.Sub(cur.At) < time.Minute && !now.Before(cur.At) {
		return nil
	}
	if err := PrepareLocal(root); err != nil {
		return err
	}
	data, err := json.Marshal(CurrentSession{Session: session, Host: host, At: now.UTC()})
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o644)
}

func readCurrentSession(path string) (CurrentSession, bool) {
	var cur CurrentSession
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &cur) != nil || spec.ValidateSessionKey(cur.Session) != nil {
		return CurrentSession{}, false
	}
	return cur, true
}

// CurrentSessionAt returns the session hooks last recorded for the
// workspace at root, if the record is recent at now.
func CurrentSessionAt(root string, now time.Time) (CurrentSession, bool) {
	cur, ok := readCurrentSession(filepath.Join(root, filepath.FromSlash(spec.LocalDir), currentSessionFile))
	if !ok {
		return cur, false
	}
	age := now.Sub(cur.At)
	return cur, age < currentSessionTTL && age > -time.Minute
}

// HasCheckpoints reports whether the session's ref exists.
func (w *Workspace) HasCheckpoints(session string) bool {
	store, err := w.storeIfAny()
	if err != nil || store == nil || spec.ValidateSessionKey(session) != nil {
		return false
	}
	_, err = store.ReadRef(w.sessionRefFor(session))
	return err == nil
}

// noCheckpoints is the error for a session without checkpoints; it says
// where the sessions that have some are listed.
func noCheckpoints(session string) error {
	return spec.NotFound("session %q has no checkpoints (ctxgit log --sessions lists the sessions that have)", session)
}
