package workspace

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
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
	if cur, ok := readCurrentSession(root, path); ok && cur.Session == session && cur.Host == host && now.Sub(cur.At) < time.Minute && !now.Before(cur.At) {
		return nil
	}
	data, err := json.Marshal(CurrentSession{Session: session, Host: host, At: now.UTC()})
	if err != nil {
		return err
	}
	return WriteLocal(root, path, append(data, '\n'), 0o644)
}

// EndCurrentSession retires the record when it names session: a host
// session that ended (SessionEnd) is no longer the one a person's
// commands land in, which go to their own session again (SPEC §6.3). A
// record another session wrote since is left alone.
func EndCurrentSession(root, session string) error {
	path := filepath.Join(root, filepath.FromSlash(spec.LocalDir), currentSessionFile)
	cur, ok := readCurrentSession(root, path)
	if !ok || cur.Session != session {
		return nil
	}
	return RemoveLocal(root, path)
}

func readCurrentSession(root, path string) (CurrentSession, bool) {
	var cur CurrentSession
	data, err := ReadLocal(root, path, MaxMarker)
	if err != nil || json.Unmarshal(data, &cur) != nil || spec.ValidateSessionKey(cur.Session) != nil {
		return CurrentSession{}, false
	}
	return cur, true
}

// CurrentSessionAt returns the session hooks last recorded for the
// workspace at root, if the record is recent at now.
func CurrentSessionAt(root string, now time.Time) (CurrentSession, bool) {
	cur, ok := readCurrentSession(root, filepath.Join(root, filepath.FromSlash(spec.LocalDir), currentSessionFile))
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

// SessionChoice says how PickSession chose.
type SessionChoice struct {
	Session string
	// Why is "" when the session was named exactly, else how it was
	// found: "current host session", "newest session", "unique prefix",
	// "short id", "newest fetched session".
	Why string
}

// PickSession chooses the session a command works on (SPEC §6.3). A
// session named with --session or CTXGIT_SESSION is used as given, except
// that a command that only reads history takes a unique prefix of an
// existing session (REMOTE/PREFIX for a fetched one), and a command that
// writes takes a session's short id. With none named, the session the
// environment names (Codex's CODEX_THREAD_ID), else the current host
// session recorded by the hooks is used; for a read, when that has no
// checkpoints either and `default` has none, the newest session, else
// (a clone with only fetched sessions) the newest fetched one. A
// function, not a method: the command and the feature packages that
// name sessions share it.
func PickSession(w *Workspace, given string, named, read bool) (SessionChoice, error) {
	if named {
		if !read {
			return sessionByShortID(w, given), nil
		}
		return sessionByPrefix(w, given)
	}
	if env := envSession(w); env != "" && (!read || w.HasCheckpoints(env)) {
		return SessionChoice{Session: env, Why: "codex thread from CODEX_THREAD_ID"}, nil
	}
	if cur, ok := CurrentSessionAt(w.Root, w.Env.Now()); ok && (!read || w.HasCheckpoints(cur.Session)) {
		return SessionChoice{Session: cur.Session, Why: "current " + cur.Host + " session"}, nil
	}
	if !read || w.HasCheckpoints(given) {
		return SessionChoice{Session: given}, nil
	}
	newest, err := w.Newest()
	if err != nil {
		return SessionChoice{Session: given}, err
	}
	if newest == nil {
		if fetched := newestFetched(w); fetched != "" {
			return SessionChoice{Session: fetched, Why: "newest fetched session"}, nil
		}
		return SessionChoice{Session: given}, nil
	}
	return SessionChoice{Session: newest.Session, Why: "newest session"}, nil
}

// envSession is the host session the environment names: Codex exports
// CODEX_THREAD_ID, the id its hooks get as session_id, to the shells it
// spawns, so the agent's own ctxgit calls land in its thread's session
// whatever the env file or the current-session record say (SPEC §6.3).
func envSession(w *Workspace) string {
	id := w.Env.Getenv("CODEX_THREAD_ID")
	if id == "" {
		return ""
	}
	return spec.SanitizeSessionKey(id)
}

// newestFetched is the fetched session (REMOTE/KEY) whose head is newest,
// "" when there is none.
func newestFetched(w *Workspace) string {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		return ""
	}
	fetched, err := w.RemoteSessions()
	if err != nil {
		return ""
	}
	best, bestWhen := "", time.Time{}
	for _, f := range fetched {
		c, err := vcs.ReadCommit(store, f.ID)
		if err != nil {
			continue
		}
		if best == "" || c.Committer.When.After(bestWhen) {
			best, bestWhen = f.Name(), c.Committer.When
		}
	}
	return best
}

// sessionByShortID is, for a command that writes, the session whose short
// id (docs/cli.md#log) given is, when given is no session of its own: a
// person names sessions by the ids log --sessions shows. Anything else is
// a session key as given (a new session).
func sessionByShortID(w *Workspace, given string) SessionChoice {
	if spec.ValidateSessionKey(given) != nil || w.HasCheckpoints(given) {
		return SessionChoice{Session: given}
	}
	sessions, err := w.Sessions()
	if err != nil {
		return SessionChoice{Session: given}
	}
	keys := make([]string, len(sessions))
	for i, s := range sessions {
		keys[i] = s.Name
	}
	for key, short := range ShortIDs(keys) {
		if short == given && key != given {
			return SessionChoice{Session: key, Why: "short id"}
		}
	}
	return SessionChoice{Session: given}
}

// sessionByPrefix resolves a session named by a unique prefix of its key,
// or a fetched one by REMOTE/ and a unique prefix of its key there.
func sessionByPrefix(w *Workspace, given string) (SessionChoice, error) {
	if w.HasCheckpoints(given) {
		return SessionChoice{Session: given}, nil
	}
	var names []string
	if strings.Contains(given, "/") {
		fetched, err := w.RemoteSessions()
		if err != nil {
			return SessionChoice{}, err
		}
		for _, f := range fetched {
			names = append(names, f.Name())
		}
	} else {
		sessions, err := w.Sessions()
		if err != nil {
			return SessionChoice{}, err
		}
		for _, s := range sessions {
			names = append(names, s.Name)
		}
	}
	var hits []string
	for _, name := range names {
		if name == given {
			return SessionChoice{Session: given}, nil
		}
		if strings.HasPrefix(name, given) {
			hits = append(hits, name)
		}
	}
	sort.Strings(hits)
	switch len(hits) {
	case 0:
		return SessionChoice{Session: given}, nil
	case 1:
		return SessionChoice{Session: hits[0], Why: "unique prefix"}, nil
	}
	if len(hits) > 5 {
		hits = append(hits[:5], "…")
	}
	return SessionChoice{}, spec.Usage("session %q is ambiguous: it begins %s (give more of the key)", given, strings.Join(hits, ", "))
}
