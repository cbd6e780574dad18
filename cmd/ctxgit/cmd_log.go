package main

import (
	"bufio"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) logCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "log",
		Usage: "list a session's checkpoints, newest first",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show at most this many"},
			&cli.BoolFlag{Name: "sessions", Usage: "list sessions and their newest checkpoint instead"},
			colorFlag(), noPagerFlag(),
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.readSessionWorkspace(c)
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				if err := a.forPeople(c, true); err != nil {
					return err
				}
			}
			if c.Bool("sessions") {
				return a.listSessions(w, c.Bool("json"))
			}
			entries, err := w.Log(sess, c.Int("max-count"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				out := []logEntry{}
				for _, e := range entries {
					out = append(out, entryJSON(e))
				}
				return a.printJSON(out)
			}
			// One write for the lot, not one per line: a long history is
			// thousands of lines.
			out := bufio.NewWriter(a.stdout)
			now := w.Env.Now()
			if a.tty {
				// People see whose log this is, and that there are
				// others; piped output stays one line per checkpoint for
				// the tools that read it.
				a.logHeading(out, w, sess, len(entries))
			}
			for _, e := range entries {
				// On a terminal the time is relative, in a column.
				when := a.when(now, e.When)
				if a.tty {
					when = fmt.Sprintf("%-10s", when)
				}
				fmt.Fprintf(out, "%s  %s  %s  %-12s %5s  %s\n", a.paint(styleYellow, e.CheckpointID), e.Commit.Short(),
					when, oneLine(e.Trigger), pct(e.Utilization), oneLine(e.Subject))
			}
			out.Flush() // a write error is kept in a.out and reported by run
			return nil
		},
	})
}

// logHeading is log's heading on a terminal: the session by short id and
// title, and, when there are others, how many and where they are listed.
func (a *app) logHeading(out *bufio.Writer, w *workspace.Workspace, key string, n int) {
	if n > 0 {
		fmt.Fprintln(out, a.paint(styleBold, a.sessionHeading(w, key)))
	} else {
		fmt.Fprintln(out, a.paint(styleBold, "session "+oneLine(w.ShortSession(key))+": no checkpoints yet"))
	}
	others := 0
	if sessions, err := w.Sessions(); err == nil {
		for _, s := range sessions {
			if s.Name != key {
				others++
			}
		}
	}
	if remote, err := w.RemoteSessions(); err == nil {
		for _, s := range remote {
			if s.Name() != key {
				others++
			}
		}
	}
	if others > 0 {
		fmt.Fprintf(out, "%s too: ctxgit log --sessions lists them, ctxgit log -s ID shows one\n", spec.Plural(others, "other session"))
	}
}

// sessionHeading names a session for people: its short id (unique among
// the workspace's sessions), its title and its host.
func (a *app) sessionHeading(w *workspace.Workspace, key string) string {
	line := "session " + oneLine(w.ShortSession(key))
	if head, err := w.ResolveRead("@", key); err == nil {
		names := workspace.NamesOf(w, head)
		if names.Title != "" {
			line += " · " + oneLine(names.Title)
		}
		if names.Host != "" {
			line += " · " + oneLine(names.Host)
		}
	}
	return line
}

func (a *app) listSessions(w *workspace.Workspace, asJSON bool) error {
	sessions, err := w.Sessions()
	if err != nil {
		return err
	}
	var names []string
	for _, s := range sessions {
		names = append(names, s.Name)
	}
	// Sessions fetched from remotes follow, named REMOTE/KEY (docs/cli.md#log).
	remote, err := w.RemoteSessions()
	if err != nil {
		return err
	}
	for _, s := range remote {
		names = append(names, s.Name())
	}
	var keys []string
	for _, s := range sessions {
		keys = append(keys, s.Name)
	}
	short := workspace.ShortIDs(keys)
	var rows []sessionRow
	for i, name := range names {
		head, err := w.ResolveRead("@", name)
		if err != nil {
			return err
		}
		entries, err := w.Log(name, 1)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			continue
		}
		names := workspace.NamesOf(w, head)
		row := sessionRow{logEntry: entryJSON(entries[0]), ShortID: short[name], Title: names.Title,
			Host: names.Host, Branch: head.Checkpoint.Meta.Branch}
		row.Checkpoints, _ = spec.ParseCheckpointID(head.Checkpoint.Meta.CheckpointID)
		if i >= len(sessions) {
			rs := remote[i-len(sessions)]
			row.Session, row.Remote = name, rs.Remote
			row.ShortID = rs.Remote + "/" + workspace.ShortIDs([]string{rs.Key})[rs.Key]
		}
		rows = append(rows, row)
	}
	if asJSON {
		return a.printJSON(nonNil(rows))
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.stdout, "no sessions yet: the first checkpoint makes one (ctxgit checkpoint)")
		return nil
	}
	now := w.Env.Now()
	out := bufio.NewWriter(a.stdout)
	fmt.Fprintln(out, a.paint(styleBold, fmt.Sprintf("%-10s  %-40s  %-11s  %-14s  %5s  %s", "ID", "TITLE", "HOST", "BRANCH", "CPS", "LAST ACTIVITY")))
	for _, r := range rows {
		when, _ := time.Parse(time.RFC3339, r.CreatedAt)
		// Padded before painting: escapes have no width.
		fmt.Fprintf(out, "%s  %-40s  %-11s  %-14s  %5d  %s\n", a.paint(styleYellow, fmt.Sprintf("%-10s", oneLine(r.ShortID))), clip(oneLine(orDash(r.Title)), 40),
			clip(oneLine(orDash(r.Host)), 11), clip(oneLine(orDash(r.Branch)), 14), r.Checkpoints, relativeTime(now, when))
	}
	out.Flush()
	return nil
}

// sessionRow is a session in `ctxgit log --sessions --json`: its newest
// checkpoint as `log --json` has it, and what names the session.
type sessionRow struct {
	logEntry
	ShortID     string `json:"short_id"`
	Title       string `json:"title"`
	Host        string `json:"host"`
	Branch      string `json:"branch"`
	Checkpoints int    `json:"checkpoints"`
}

// clip cuts s to n runes for a table column, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// logEntry is one checkpoint in `ctxgit log --json`, and a session's
// newest in `ctxgit log --sessions --json` (with remote for a fetched one).
type logEntry struct {
	CheckpointID string `json:"checkpoint_id"`
	Commit       string `json:"commit"`
	CreatedAt    string `json:"created_at"`
	Remote       string `json:"remote,omitempty"`
	Session      string `json:"session"`
	Subject      string `json:"subject"`
	Trigger      string `json:"trigger"`
	Utilization  string `json:"utilization"`
}

func entryJSON(e workspace.Entry) logEntry {
	return logEntry{CheckpointID: e.CheckpointID, Commit: e.Commit.String(), CreatedAt: e.When.Format(time.RFC3339),
		Session: e.Session, Subject: e.Subject, Trigger: e.Trigger, Utilization: e.Utilization}
}

func pct(util string) string {
	var f float64
	if _, err := fmt.Sscanf(util, "%f", &f); err != nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}
