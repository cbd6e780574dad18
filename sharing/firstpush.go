package sharing

import (
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// FirstPushNotice is what the first push to a remote (one this workspace
// has no refs of under refs/ctxgit/remotes/ yet) will send: a session's
// plans, logs, the user's prompts and its file snapshots are readable text
// to anyone who can read the remote (docs/SHARING.md), so the person
// sees which sessions go before they go (docs/cli.md#push).
type FirstPushNotice struct {
	Remote   string // the namespace name under refs/ctxgit/remotes/
	URL      string // without any password
	Sessions []NoticeSession
	// Kept counts the workspace's sessions this push does not send.
	Kept int
}

// NoticeSession is one session a first push sends.
type NoticeSession struct {
	Key   string `json:"session"`
	Short string `json:"short_id"`
	Title string `json:"title"`
}

// firstPushNotice names the sessions by short id (unique among the
// workspace's sessions, as log shows them) and title.
func firstPushNotice(w *workspace.Workspace, remote, url string, sessions []vcs.Ref, all int) FirstPushNotice {
	n := FirstPushNotice{Remote: remote, URL: url, Kept: all - len(sessions)}
	keys := make([]string, 0, all)
	if every, err := w.Sessions(); err == nil {
		for _, s := range every {
			keys = append(keys, s.Name)
		}
	}
	short := workspace.ShortIDs(keys)
	for _, s := range sessions {
		ns := NoticeSession{Key: s.Name, Short: short[s.Name]}
		if ns.Short == "" {
			ns.Short = s.Name
		}
		if head, err := w.Resolve("@", s.Name); err == nil {
			ns.Title = workspace.NamesOf(w, head).Title
		}
		n.Sessions = append(n.Sessions, ns)
	}
	return n
}
