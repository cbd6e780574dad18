package main

import (
	"bufio"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) logCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "log",
		Usage: "list a session's checkpoints, newest first",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show at most this many"},
			&cli.BoolFlag{Name: "sessions", Usage: "list sessions and their newest checkpoint instead"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.readSessionWorkspace(c)
			if err != nil {
				return err
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
			for _, e := range entries {
				fmt.Fprintf(out, "%s  %s  %s  %-12s %5s  %s\n", e.CheckpointID, e.Commit.Short(),
					e.When.Format("2006-01-02T15:04:05Z"), oneLine(e.Trigger), pct(e.Utilization), oneLine(e.Subject))
			}
			out.Flush() // a write error is kept in a.out and reported by run
			return nil
		},
	})
}

func (a *app) listSessions(w *workspace.Workspace, asJSON bool) error {
	sessions, err := w.Sessions()
	if err != nil {
		return err
	}
	var rows []logEntry
	for _, s := range sessions {
		entries, err := w.Log(s.Name, 1)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			rows = append(rows, entryJSON(entries[0]))
		}
	}
	// Sessions fetched from remotes follow, named REMOTE/KEY (docs/cli.md#log).
	remote, err := w.RemoteSessions()
	if err != nil {
		return err
	}
	for _, s := range remote {
		entries, err := w.Log(s.Name(), 1)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			row := entryJSON(entries[0])
			row.Session, row.Remote = s.Name(), s.Remote
			rows = append(rows, row)
		}
	}
	if asJSON {
		return a.printJSON(nonNil(rows))
	}
	for _, r := range rows {
		fmt.Fprintf(a.stdout, "%s  %s  %s\n", r.Session, r.CheckpointID, r.CreatedAt)
	}
	return nil
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
