package workspace

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// TitleRunes bounds a session's title.
const TitleRunes = 60

// SessionNames is how a person tells a session from another
// (docs/cli.md#log): its title and the host it ran in.
type SessionNames struct {
	// Title is the goal of the plan the newest checkpoint saw (else the
	// plan's title), else the first user prompt the session recorded, on
	// one line and shortened.
	Title string
	// Host is the newest checkpoint's host, else the first's.
	Host string
	// Started is when the session's first checkpoint was taken.
	Started time.Time
}

// NamesOf reads a session's names from its newest checkpoint and, where
// that lacks them, its first.
func NamesOf(w *Workspace, head *Resolved) SessionNames {
	cp := head.Checkpoint
	first := cp
	if base, err := vcs.ParseHash(cp.Meta.SessionBase); err == nil {
		if store, err := w.storeIfAny(); err == nil && store != nil {
			if b, err := readCheckpointAt(store, base); err == nil {
				first = b
			}
		}
	}
	var n SessionNames
	for _, s := range []string{string(cp.Plan.Goal), string(cp.Plan.Title), string(first.Thread.LatestPrompt), string(cp.Thread.LatestPrompt)} {
		if n.Title = titleLine(s); n.Title != "" {
			break
		}
	}
	n.Host, n.Started = cp.Meta.Host, first.Meta.CreatedAt
	if n.Host == "" {
		n.Host = first.Meta.Host
	}
	return n
}

// TitleLine is s as a session's title: its first line, shortened
// (titleLine).
func TitleLine(s string) string { return titleLine(s) }

// titleLine is s's first non-empty line, its spaces folded, cut to
// TitleRunes with an ellipsis.
func titleLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > TitleRunes {
			r := []rune(line)
			line = strings.TrimRight(string(r[:TitleRunes-1]), " ") + "…"
		}
		return line
	}
	return ""
}

// ShortIDs gives each session key its short id (docs/cli.md#log): the
// first spec.ShortSessionLen characters, longer where two keys share
// them, the whole key when shorter.
func ShortIDs(keys []string) map[string]string {
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		n := spec.ShortSessionLen
		for _, o := range keys {
			if o == k {
				continue
			}
			for n < len(k) && len(o) >= n && o[:n] == k[:n] {
				n++
			}
		}
		if n > len(k) {
			n = len(k)
		}
		out[k] = k[:n]
	}
	return out
}

// ShortSession is the session's name as a person reads it: its short id
// among the workspace's sessions (ShortIDs), which every read command
// takes back as a prefix; a fetched session (REMOTE/KEY) keeps its key.
func (w *Workspace) ShortSession(key string) string {
	if len(key) <= spec.ShortSessionLen {
		return key // its own short id, whatever the other sessions
	}
	if w.sessionKeys == nil {
		sessions, err := w.Sessions()
		if err != nil {
			return key
		}
		w.sessionKeys = make([]string, 0, len(sessions))
		for _, s := range sessions {
			w.sessionKeys = append(w.sessionKeys, s.Name)
		}
	}
	keys := w.sessionKeys
	if !slices.Contains(keys, key) && spec.ValidateSessionKey(key) == nil {
		keys = append(slices.Clip(keys), key) // a session's first checkpoint names it
	}
	if short, ok := ShortIDs(keys)[key]; ok {
		return short
	}
	return key
}
