package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// showMaxFiles is how many changed files the human form of show lists;
// `ctxgit diff` lists them all.
const showMaxFiles = 20

func (a *app) showCommand() *cli.Command {
	return args("CHECKPOINT?").command(&cli.Command{
		Name:  "show",
		Usage: "show a checkpoint (default: the session's newest): what it recorded and what changed since the one before",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.BoolFlag{Name: "yaml", Usage: "print the checkpoint's YAML as stored"},
			colorFlag(), noPagerFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.Bool("json") && c.Bool("yaml") {
				return spec.Usage("--json and --yaml cannot be combined: pick one output form")
			}
			w, sess, err := a.readSessionWorkspace(c)
			if err != nil {
				return err
			}
			r, err := w.ResolveRead(c.Args().First(), sess)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(showResult{Checkpoint: r.Checkpoint, Commit: r.Commit.String(), Session: r.Session})
			}
			if c.Bool("yaml") {
				data, err := spec.MarshalCheckpoint(r.Checkpoint)
				if err != nil {
					return err
				}
				if err := a.forPeople(c, true); err != nil {
					return err
				}
				// The YAML as stored, with anything that could hide or
				// rewrite what a reader sees made visible (SPEC §10.1).
				fmt.Fprintf(a.stdout, "# commit %s (session %s)\n%s", r.Commit, r.Session, safetext.Visible(string(data)))
				return nil
			}
			since, err := a.sinceBefore(w, r)
			if err != nil {
				return err
			}
			if err := a.forPeople(c, true); err != nil {
				return err
			}
			a.printShow(a.stdout, r, since, w.Env.Now())
			return nil
		},
	})
}

// showSince is what changed since the checkpoint before the one shown.
type showSince struct {
	// prev names the checkpoint before ("" for a session's first), gone
	// says it is no longer stored (pruned).
	prev string
	gone bool
	diff *review.Diff
	// session names the checkpoint's session for people: short id,
	// title, host.
	session string
}

// sinceBefore compares a checkpoint with the one before it in its
// session; the first is compared with nothing (everything in it is new,
// files without line counts: the whole workspace may be new).
func (a *app) sinceBefore(w *workspace.Workspace, r *workspace.Resolved) (*showSince, error) {
	s := &showSince{prev: r.Checkpoint.Meta.PreviousCheckpoint,
		session: strings.TrimPrefix(a.sessionHeading(w, r.Session), "session ")}
	var from *workspace.Resolved
	if s.prev != "" {
		var err error
		from, err = w.ResolveRead(r.Session+":"+s.prev, r.Session)
		if err != nil {
			if exitCode(err) != spec.ExitNotFound {
				return nil, err
			}
			s.gone = true
			return s, nil
		}
	}
	d, err := review.DiffCheckpoints(w, from, r, review.DiffOptions{Lines: from != nil, Semantic: true})
	if err != nil {
		return nil, err
	}
	for _, p := range d.Problems {
		a.warn("%s", p.Error())
	}
	s.diff = d
	return s, nil
}

// printShow is show's human form (docs/cli.md#show): a heading, the
// checkpoint's facts one a line, then what changed since the one before.
func (a *app) printShow(out io.Writer, r *workspace.Resolved, s *showSince, now time.Time) {
	cp := r.Checkpoint
	m := cp.Meta
	head := fmt.Sprintf("checkpoint %s (%s)", m.CheckpointID, safetext.Line(m.Trigger))
	if t := firstLine(string(cp.Working.Topic)); t != "" {
		head += ": " + safetext.Line(t)
	}
	fmt.Fprintln(out, a.paint(styleYellow, head))
	row := func(label, text string) {
		if text != "" {
			fmt.Fprintf(out, "%-9s %s\n", label, text)
		}
	}
	row("commit", r.Commit.String())
	row("session", s.session)
	row("when", fmt.Sprintf("%s (%s)", relativeTime(now, m.CreatedAt), m.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")))
	row("context", usageLine(m.TokenUsage))
	if m.CompactionCount > 0 {
		row("compacted", spec.Plural(m.CompactionCount, "time")+" before it")
	}
	p := cp.Plan
	row("goal", safetext.Line(truncate(string(p.Goal), 100)))
	if p.Total > 0 {
		step := fmt.Sprintf("%d of %d done", p.Done, p.Total)
		if p.CurrentStep != "" {
			step += "; now " + safetext.Line(truncate(string(p.CurrentStep), 80))
		}
		row("step", step)
	}
	row("next", safetext.Line(truncate(string(cp.Working.NextAction), 100)))
	if msg := strings.TrimSpace(string(m.Message)); msg != "" && firstLine(msg) != firstLine(string(cp.Working.Topic)) {
		row("message", safetext.Line(truncate(firstLine(msg), 100)))
	}
	if f := cp.Metacog.LastFailure; f != "" {
		line := safetext.Line(truncate(string(f), 90))
		if cp.Metacog.LastFailureType != "" {
			line += fmt.Sprintf(" (%s → %s)", cp.Metacog.LastFailureType, cp.Metacog.LastFailureAction)
		}
		row("failure", a.paint(styleRed, line))
	}

	since := "since " + s.prev
	switch {
	case s.gone:
		fmt.Fprintf(out, "\nThe checkpoint before it, %s, is no longer stored: nothing to compare with.\n", s.prev)
		return
	case s.prev == "":
		since = "in the session's first checkpoint"
	}
	d := s.diff
	section := func(title string) { fmt.Fprintf(out, "\n%s\n", a.paint(styleBold, title)) }
	added := func(title string, lines []string) {
		if len(lines) > 0 {
			section(title)
			for _, l := range lines {
				fmt.Fprintf(out, "  %s\n", l)
			}
		}
	}
	added("Decisions "+since+":", changeLines(d.Decisions, review.ChangeAdded,
		func(dc review.DecisionChange) (string, string) { return dc.Change, review.DecisionText(dc.Decision) }))
	added("Failures "+since+":", changeLines(d.Failures, review.ChangeAdded,
		func(fc review.FailureChange) (string, string) { return fc.Change, review.FailureText(fc.FailureEntry) }))
	if len(d.Files) == 0 {
		if s.prev != "" {
			fmt.Fprintf(out, "\nNo files changed %s.\n", since)
		}
	} else {
		title := fmt.Sprintf("Files %s: %d", since, len(d.Files))
		if s.prev != "" {
			t := review.Totals(d.Files)
			title = fmt.Sprintf("Files changed %s: %d, +%d -%d", since, t.Files, t.Added, t.Removed)
		}
		section(title)
		for i, f := range d.Files {
			if i == showMaxFiles {
				fmt.Fprintf(out, "  … %d more\n", len(d.Files)-showMaxFiles)
				break
			}
			name := safetext.Path(f.Path)
			if f.From != "" {
				name = safetext.Path(f.From) + " → " + name
			}
			line := fmt.Sprintf("  %s  %s", f.Status, name)
			if s.prev != "" {
				line += "  " + lineCounts(f)
			}
			fmt.Fprintln(out, line)
		}
	}
	name := func(id string) string { return safetext.Line(a.short(r.Session)) + ":" + id }
	hint := fmt.Sprintf("ctxgit show --yaml %s prints the whole checkpoint", name(m.CheckpointID))
	if s.prev != "" {
		hint += fmt.Sprintf("; ctxgit diff -p %s %s the patch", name(s.prev), name(m.CheckpointID))
	}
	fmt.Fprintf(out, "\n%s\n", a.paint(styleDim, hint+"."))
}

// usageLine is a checkpoint's context fill, or "unknown".
func usageLine(u spec.TokenUsage) string {
	if u.Source == "" {
		return "unknown (no reading when it was taken)"
	}
	line := fmt.Sprintf("%.0f%%", u.Utilization*100)
	if u.ContextWindow > 0 {
		line += fmt.Sprintf(" of %dk tokens", u.ContextWindow/1000)
	}
	return line + " (" + safetext.Line(u.Source) + ")"
}

// firstLine is s up to its first newline, trimmed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// showResult is `ctxgit show --json`.
type showResult struct {
	Checkpoint *spec.Checkpoint `json:"checkpoint"`
	Commit     string           `json:"commit"`
	Session    string           `json:"session"`
}
