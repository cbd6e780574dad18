package main

import (
	"sort"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// sessionChoice says how pickSessionFor chose.
type sessionChoice struct {
	Session string
	// Why is "" when the session was named exactly, else how it was
	// found: "current host session", "newest session", "unique prefix".
	Why string
}

// pickSessionFor chooses the session a command works on (SPEC §6.3). A
// session named with --session or CTXGIT_SESSION is used as given, except
// that a command that only reads history takes a unique prefix of an
// existing session. With none named, the current host session recorded by
// the hooks is used; for a read, when that has no checkpoints either and
// `default` has none, the newest session.
func pickSessionFor(w *workspace.Workspace, given string, named, read bool) (sessionChoice, error) {
	if named {
		if !read || strings.Contains(given, "/") {
			return sessionChoice{Session: given}, nil
		}
		return sessionByPrefix(w, given)
	}
	if cur, ok := workspace.CurrentSessionAt(w.Root, w.Env.Now()); ok && (!read || w.HasCheckpoints(cur.Session)) {
		return sessionChoice{Session: cur.Session, Why: "current " + cur.Host + " session"}, nil
	}
	if !read || w.HasCheckpoints(given) {
		return sessionChoice{Session: given}, nil
	}
	newest, err := w.Newest()
	if err != nil || newest == nil {
		return sessionChoice{Session: given}, err
	}
	return sessionChoice{Session: newest.Session, Why: "newest session"}, nil
}

// sessionByPrefix resolves a session named by a unique prefix of its key.
func sessionByPrefix(w *workspace.Workspace, given string) (sessionChoice, error) {
	if w.HasCheckpoints(given) {
		return sessionChoice{Session: given}, nil
	}
	sessions, err := w.Sessions()
	if err != nil {
		return sessionChoice{}, err
	}
	var hits []string
	for _, s := range sessions {
		if strings.HasPrefix(s.Name, given) {
			hits = append(hits, s.Name)
		}
	}
	sort.Strings(hits)
	switch len(hits) {
	case 0:
		return sessionChoice{Session: given}, nil
	case 1:
		return sessionChoice{Session: hits[0], Why: "unique prefix"}, nil
	}
	if len(hits) > 5 {
		hits = append(hits[:5], "…")
	}
	return sessionChoice{}, spec.Usage("session %q is ambiguous: it begins %s (give more of the key)", given, strings.Join(hits, ", "))
}
