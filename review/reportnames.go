package review

import (
	"strings"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/workspace"
)

// SessionLabel is how a report names a session to a reviewer
// (docs/cli.md#report): its short id and title, as log --sessions shows
// them, never its 36-character key.
type SessionLabel struct {
	Short, Title string
}

// nameSessions fills r.Names for r's sessions: short ids among the
// workspace's sessions (REMOTE/SHORT for a fetched one), titles from each
// session's newest checkpoint.
func nameSessions(w *workspace.Workspace, r *Report) {
	r.Names = map[string]SessionLabel{}
	var keys []string
	if sessions, err := w.Sessions(); err == nil {
		for _, s := range sessions {
			keys = append(keys, s.Name)
		}
	}
	short := workspace.ShortIDs(keys)
	for _, key := range r.Sessions {
		l := SessionLabel{Short: short[key]}
		if remote, k, ok := strings.Cut(key, "/"); ok {
			l.Short = remote + "/" + workspace.ShortIDs([]string{k})[k]
		}
		if l.Short == "" {
			l.Short = key
		}
		if head, err := w.ResolveRead("@", key); err == nil {
			l.Title = workspace.NamesOf(w, head).Title
		}
		r.Names[key] = l
	}
}

// short is the session's short id.
func (r *Report) short(key string) string {
	if l, ok := r.Names[key]; ok {
		return l.Short
	}
	return key
}

// cpName is a checkpoint named SHORT:cp_NNN.
func (r *Report) cpName(c *workspace.Resolved) string {
	return r.short(c.Session) + ":" + c.Checkpoint.Meta.CheckpointID
}

// title is the session's title, "" when the report's heading already
// says it (the title is the plan's goal, else its title).
func (r *Report) title(key string) string {
	t := r.Names[key].Title
	if t == r.Title || t == r.Goal || t == workspace.TitleLine(r.Goal) || t == workspace.TitleLine(r.Title) {
		return ""
	}
	return t
}

// titled is the session in Markdown: its short id as code, then its
// title.
func (r *Report) titled(key string) string {
	s := code(r.short(key))
	if t := r.title(key); t != "" {
		s += " (“" + safetext.Line(t) + "”)"
	}
	return s
}

// plainTitled is titled as plain text (the HTML page escapes it).
func (r *Report) plainTitled(key string) string {
	s := r.short(key)
	if t := r.title(key); t != "" {
		s += " “" + safetext.Line(t) + "”"
	}
	return s
}

// sessionList is the sessions, titled, in order.
func (r *Report) sessionList() string {
	out := make([]string, len(r.Sessions))
	for i, k := range r.Sessions {
		out[i] = r.titled(k)
	}
	return strings.Join(out, ", ")
}
