package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

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
			a.writeLogRows(out, logRows(entries, func(t time.Time) string { return a.when(now, t) }))
			out.Flush() // a write error is kept in a.out and reported by run
			return nil
		},
	})
}

// logRow is one line of `ctxgit log`: a checkpoint, or a restore's two.
type logRow struct {
	id, commit, when, trigger, context, subject string
}

// logRows are the lines of a log, newest first, as `git log --oneline`
// has them: the subject says what happened (the message, else the
// trigger in words), never the id and trigger again; a restore's two
// checkpoints are one line (workspace.LogLines).
func logRows(entries []workspace.Entry, when func(time.Time) string) []logRow {
	var rows []logRow
	for _, l := range workspace.LogLines(entries) {
		rows = append(rows, logRow{id: l.CheckpointID, commit: l.Commit.Short(), when: when(l.When),
			trigger: oneLine(l.Kind()), context: pct(l.Utilization), subject: oneLine(l.What())})
	}
	return rows
}

// writeLogRows writes rows in aligned columns: each as wide as its widest
// value, the context right-aligned.
func (a *app) writeLogRows(out io.Writer, rows []logRow) {
	var wid, wwhen, wtrig, wctx int
	for _, r := range rows {
		wid = max(wid, utf8.RuneCountInString(r.id))
		wwhen = max(wwhen, utf8.RuneCountInString(r.when))
		wtrig = max(wtrig, utf8.RuneCountInString(r.trigger))
		wctx = max(wctx, utf8.RuneCountInString(r.context))
	}
	for _, r := range rows {
		// Padded before painting: escapes have no width.
		fmt.Fprintf(out, "%s  %s  %s  %s  %s  %s\n", a.paint(styleYellow, padRight(r.id, wid)), r.commit,
			padRight(r.when, wwhen), padRight(r.trigger, wtrig), padLeft(r.context, wctx), r.subject)
	}
}

func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}

func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s))) + s
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
		// The whole chain: after a prune the newest id's number says how
		// many checkpoints the session made, not how many it holds.
		entries, err := w.Log(name, 0)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			continue
		}
		names := workspace.NamesOf(w, head)
		row := sessionRow{logEntry: entryJSON(entries[0]), ShortID: short[name], Title: names.Title,
			Host: names.Host, Branch: head.Checkpoint.Meta.Branch, Checkpoints: len(entries)}
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
	table := [][]string{{"ID", "TITLE", "HOST", "BRANCH", "CPS", "LAST ACTIVITY"}}
	for _, r := range rows {
		when, _ := time.Parse(time.RFC3339, r.CreatedAt)
		table = append(table, []string{oneLine(r.ShortID), oneLine(orDash(r.Title)), oneLine(orDash(r.Host)),
			oneLine(orDash(r.Branch)), fmt.Sprint(r.Checkpoints), relativeTime(now, when)})
	}
	widths := fitColumns(table, a.termWidth(), []sessionColumn{{1, 20}, {3, 14}, {2, 11}})
	out := bufio.NewWriter(a.stdout)
	for i, cells := range table {
		var line strings.Builder
		for j, c := range cells {
			c = clip(c, widths[j])
			switch {
			case j == 4:
				c = padLeft(c, widths[j])
			case j < len(cells)-1:
				c = padRight(c, widths[j])
			}
			// Padded before painting: escapes have no width.
			if i > 0 && j == 0 {
				c = a.paint(styleYellow, c)
			}
			if j > 0 {
				line.WriteString("  ")
			}
			line.WriteString(c)
		}
		text := line.String()
		if i == 0 {
			text = a.paint(styleBold, text)
		}
		fmt.Fprintln(out, text)
	}
	out.Flush()
	return nil
}

// sessionColumn is a column fitColumns may narrow, down to at least min.
type sessionColumn struct{ index, min int }

// fitColumns sizes a table's columns to their widest cell; when the
// lines would pass width (0: no limit), the columns named shrink in turn,
// each down to its minimum, until they fit.
func fitColumns(table [][]string, width int, shrink []sessionColumn) []int {
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for j, c := range row {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	if width <= 0 {
		return widths
	}
	total := 2 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	for _, col := range shrink {
		if total <= width {
			break
		}
		cut := min(total-width, widths[col.index]-col.min)
		if cut > 0 {
			widths[col.index] -= cut
			total -= cut
		}
	}
	return widths
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
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// logEntry is one checkpoint in `ctxgit log --json`, and a session's
// newest in `ctxgit log --sessions --json` (with remote for a fetched one).
type logEntry struct {
	CheckpointID string `json:"checkpoint_id"`
	Commit       string `json:"commit"`
	CreatedAt    string `json:"created_at"`
	Message      string `json:"message"`
	Remote       string `json:"remote,omitempty"`
	Session      string `json:"session"`
	Subject      string `json:"subject"`
	Trigger      string `json:"trigger"`
	Utilization  string `json:"utilization"`
}

func entryJSON(e workspace.Entry) logEntry {
	return logEntry{CheckpointID: e.CheckpointID, Commit: e.Commit.String(), CreatedAt: e.When.Format(time.RFC3339),
		Session: e.Session, Subject: e.Subject, Message: e.Message, Trigger: e.Trigger, Utilization: e.Utilization}
}

func pct(util string) string {
	var f float64
	if _, err := fmt.Sscanf(util, "%f", &f); err != nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}
