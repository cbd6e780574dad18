package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/sharing"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// What push and fetch share (docs/cli.md#push, docs/cli.md#fetch): the timeout,
// the report of what moved, and the remote's own messages.

// printFirstPush tells, on stderr and before anything is sent, what the
// first push to a remote sends (docs/cli.md#push): stdout stays the
// result, --json's too.
func (a *app) printFirstPush(n sharing.FirstPushNotice) {
	fmt.Fprintf(a.stderr, "note: first push to %s (%s): sending %s as readable text (plans, logs, the user's prompts, file snapshots) that anyone who can read %s can read:\n",
		oneLine(n.Remote), oneLine(n.URL), spec.Plural(len(n.Sessions), "session"), oneLine(n.Remote))
	for _, s := range n.Sessions {
		title := ""
		if s.Title != "" {
			title = "  \"" + oneLine(s.Title) + "\""
		}
		fmt.Fprintf(a.stderr, "note:   %s%s\n", oneLine(s.Short), title)
	}
	if n.Kept > 0 {
		fmt.Fprintf(a.stderr, "note: %s not sent (--session KEY or --all sends them)\n", spec.Plural(n.Kept, "other session"))
	}
}

// timeoutFlag bounds each git run against a network remote (docs/cli.md#push).
var timeoutFlag = &cli.DurationFlag{Name: "timeout", Usage: "give up on a network remote after `DURATION` (e.g. 90s)", DefaultText: "git config ctxgit.remoteTimeout, else 5m"}

// printSync prints a push's or fetch's result: a heading, then one line
// per session.
func (a *app) printSync(res *sharing.Result, verb string, asJSON bool) error {
	for _, warn := range res.Warnings {
		a.warn("%s", warn)
	}
	if asJSON {
		out := syncResult{Objects: res.Objects, Refs: []syncRef{}, Remote: res.Remote, URL: res.URL}
		for _, r := range res.Refs {
			out.Refs = append(out.Refs, syncRef{CheckpointID: r.CheckpointID, LocalRef: r.Local, New: hashOrEmpty(r.New),
				Old: hashOrEmpty(r.Old), Reason: r.Reason, Ref: r.Ref, Session: r.Session, Status: r.Status})
		}
		return a.printJSON(out)
	}
	names := a.syncNames(res)
	fmt.Fprintf(a.stdout, "%s %s (%s): %d objects\n", verb, res.Remote, res.URL, res.Objects)
	if len(res.Refs) == 0 {
		fmt.Fprintln(a.stdout, "no sessions there")
	}
	for _, r := range res.Refs {
		detail := ""
		switch r.Status {
		case sharing.RefNew:
			detail = fmt.Sprintf("%s %s", r.CheckpointID, r.New.Short())
		case sharing.RefFastForward, sharing.RefForced:
			detail = fmt.Sprintf("%s %s..%s", r.CheckpointID, r.Old.Short(), r.New.Short())
		case sharing.RefUpToDate:
			detail = r.CheckpointID
		case sharing.RefDeleted:
			detail = "was " + r.Old.Short()
		case sharing.RefRejected:
			detail = r.Reason // the remote's words
		}
		fmt.Fprintf(a.stdout, "%-12s  %s  %s\n", r.Status, oneLine(names[r.Session]), oneLine(detail))
	}
	return nil
}

// syncNames are the sessions of a push's or fetch's lines as people
// read them (--json keeps the keys): a session of this workspace by its
// short id among them, as log --sessions lists it; a fetched one as
// REMOTE/SHORT; any other name as it is.
func (a *app) syncNames(res *sharing.Result) map[string]string {
	var keys []string
	if a.ws != nil {
		if sessions, err := a.ws.Sessions(); err == nil {
			for _, s := range sessions {
				keys = append(keys, s.Name)
			}
		}
	}
	for _, r := range res.Refs {
		if !strings.Contains(r.Session, "/") && !slices.Contains(keys, r.Session) {
			keys = append(keys, r.Session) // a session pushed away, not here now
		}
	}
	short := workspace.ShortIDs(keys)
	names := map[string]string{}
	for _, r := range res.Refs {
		name := r.Session
		if remote, key, ok := strings.Cut(name, "/"); ok {
			if spec.ValidateSessionKey(key) == nil {
				name = remote + "/" + workspace.ShortIDs([]string{key})[key]
			}
		} else if s, ok := short[name]; ok {
			name = s
		}
		names[r.Session] = name
	}
	return names
}

func hashOrEmpty(h workspace.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// remoteMessages passes what the remote says (its hooks' output) to
// stderr, a line at a time, each marked as the remote's.
func (a *app) remoteMessages() io.Writer {
	return &prefixLines{w: a.stderr, prefix: "ctxgit: remote: "}
}

type prefixLines struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n")
		if i < 0 && len(p.buf) < maxRemoteLine {
			return len(b), nil
		}
		if i < 0 {
			i = maxRemoteLine - 1 // a remote that never ends its line
		}
		// The remote's text, folded: it cannot forge a line of ours or
		// reach the terminal with escapes.
		if line := oneLine(string(p.buf[:i+1])); line != "" {
			fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
		}
		p.buf = p.buf[i+1:]
	}
}

// maxRemoteLine bounds what is kept of a remote's unfinished line.
const maxRemoteLine = 4096

// syncResult is `ctxgit push --json` and `ctxgit fetch --json`.
type syncResult struct {
	Objects int       `json:"objects"`
	Refs    []syncRef `json:"refs"`
	Remote  string    `json:"remote"`
	URL     string    `json:"url"`
}

// syncRef is what happened to one session's ref; reason is there only
// for a rejected one.
type syncRef struct {
	CheckpointID string `json:"checkpoint_id"`
	LocalRef     string `json:"local_ref"`
	New          string `json:"new"`
	Old          string `json:"old"`
	Reason       string `json:"reason,omitempty"`
	Ref          string `json:"ref"`
	Session      string `json:"session"`
	Status       string `json:"status"`
}

// syncAction is push's and fetch's action: open the workspace, run the
// transfer with the options both take plus the command's own (set), and
// print what it did, even when it failed part way.
func (a *app) syncAction(run func(*workspace.Workspace, sharing.Options) (*sharing.Result, error), verb string, set func(*cli.Context, *sharing.Options)) cli.ActionFunc {
	return func(c *cli.Context) error {
		w, err := a.open(c)
		if err != nil {
			return err
		}
		o := sharing.Options{Remote: c.Args().First(), As: c.String("as"), Messages: a.remoteMessages(), Timeout: c.Duration("timeout"), Ctx: c.Context}
		set(c, &o)
		res, err := run(w, o)
		if res != nil {
			if perr := a.printSync(res, verb, c.Bool("json")); perr != nil && err == nil {
				err = perr
			}
		}
		return err
	}
}
