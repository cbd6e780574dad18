package review

import (
	"slices"
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

// forPeople is r as its Markdown, GitHub and HTML forms show it: a
// report of several sessions names a checkpoint SESSION:cp_NNN in its
// decisions, failures, instructions, open items and plan steps, and the
// session is said by its short id there, as everywhere a person reads
// (issue 36), never by its 36-character key. The JSON form keeps the
// keys, which programs read. r itself is left as it is.
func (r *Report) forPeople() *Report {
	if len(r.Sessions) < 2 {
		return r // the checkpoints are named by id alone
	}
	name := func(at string) string {
		if key, id, ok := strings.Cut(at, ":"); ok {
			if l, ok := r.Names[key]; ok && l.Short != "" {
				return l.Short + ":" + id
			}
		}
		return at
	}
	c := *r
	c.Decisions = renamed(r.Decisions, func(e *ReportDecision) *string { return &e.At }, name)
	c.Failures = renamed(r.Failures, func(e *ReportFailure) *string { return &e.At }, name)
	c.Instructions = renamed(r.Instructions, func(e *ReportInstruction) *string { return &e.At }, name)
	c.OpenItems = renamed(r.OpenItems, func(e *ReportOpenItem) *string { return &e.At }, name)
	c.Steps = renamed(r.Steps, func(e *ReportStep) *string { return &e.At }, name)
	return &c
}

// renamed is a copy of list with the checkpoint name field gives of each
// entry put through name.
func renamed[E any](list []E, field func(*E) *string, name func(string) string) []E {
	if list == nil {
		return nil
	}
	out := slices.Clone(list)
	for i := range out {
		at := field(&out[i])
		*at = name(*at)
	}
	return out
}
