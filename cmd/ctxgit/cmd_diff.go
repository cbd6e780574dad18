package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) diffCommand() *cli.Command {
	return args("FROM?", "TO?").command(&cli.Command{
		Name:  "diff",
		Usage: "what changed between two checkpoints, or from a checkpoint to the working tree: files with line counts, plan, decisions, failures",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.BoolFlag{Name: "name-only", Usage: "print the changed paths only"},
			&cli.BoolFlag{Name: "stat", Usage: "print git's --stat summary of the changed files only"},
			&cli.BoolFlag{Name: "patch", Aliases: []string{"p"}, Usage: "print the files' unified patch, as git diff does"},
			colorFlag(), noPagerFlag(),
		},
		Action: func(c *cli.Context) error {
			var forms []string
			for _, f := range []string{"json", "name-only", "stat", "patch"} {
				if c.Bool(f) {
					forms = append(forms, "--"+f)
				}
			}
			if len(forms) > 1 {
				return spec.Usage("%s cannot be combined: pick one output form", strings.Join(forms, " and "))
			}
			w, sess, err := a.readSessionWorkspace(c)
			if err != nil {
				return err
			}
			from, to, worktree, err := diffSides(w, c.Args().Slice(), sess)
			if err != nil {
				return err
			}
			if c.Bool("patch") {
				if err := a.forPeople(c, true); err != nil {
					return err
				}
				if worktree != nil {
					return review.WritePatchWorktree(a.stdout, worktree, review.PatchOptions{Paint: a.patchPaint})
				}
				return review.WritePatch(w, a.stdout, from, to, review.PatchOptions{Paint: a.patchPaint})
			}
			nameOnly, stat := c.Bool("name-only"), c.Bool("stat")
			o := review.DiffOptions{Lines: !nameOnly, Semantic: !nameOnly && !stat}
			var d *review.Diff
			if worktree != nil {
				d, err = review.DiffWorktree(w, worktree, o)
			} else {
				d, err = review.DiffCheckpoints(w, from, to, o)
			}
			if err != nil {
				return err
			}
			for _, p := range d.Problems {
				a.warn("%s", p.Error())
			}
			if !c.Bool("json") {
				if err := a.forPeople(c, true); err != nil {
					return err
				}
			}
			switch {
			case c.Bool("json"):
				return a.printJSON(diffJSON(d))
			case nameOnly:
				for _, f := range d.Files {
					fmt.Fprintln(a.stdout, safetext.Path(f.Path))
				}
				return nil
			case stat:
				_, err := fmt.Fprint(a.stdout, review.RenderStat(d.Files))
				return err
			}
			a.printDiff(a.stdout, d, c.NArg() == 0 && !isFetched(sess))
			return nil
		},
	})
}

// diffSides is what `ctxgit diff ARGS` compares (docs/cli.md#diff): two
// checkpoints; one checkpoint and the working tree (worktree, read once,
// with to nil), as `git diff COMMIT`; with no argument, the newest
// checkpoint and the working tree when they differ, else the checkpoint
// before the newest and the newest.
func diffSides(w *workspace.Workspace, args []string, session string) (from, to *workspace.Resolved, worktree *review.WorktreeChanges, err error) {
	switch len(args) {
	case 2:
		from, to, err = review.DiffSides(w, args[0], args[1], session)
		return from, to, nil, err
	case 1:
		if from, err = w.ResolveRead(args[0], session); err != nil {
			return nil, nil, nil, err
		}
		worktree, err = review.ReadWorktreeChanges(w, from, session)
		return from, nil, worktree, err
	}
	newest, err := w.ResolveRead("@", session)
	if err != nil {
		return nil, nil, nil, err
	}
	if !isFetched(session) {
		worktree, err := review.ReadWorktreeChanges(w, newest, session)
		if err != nil {
			return nil, nil, nil, err
		}
		if worktree.Differs() {
			return newest, nil, worktree, nil
		}
	}
	from, to, err = review.DiffSides(w, "", "", session)
	return from, to, nil, err
}

// patchPaint colours a patch as git does: headers bold, hunk headers
// cyan, removed lines red, added ones green.
func (a *app) patchPaint(part review.PatchPart, line string) string {
	switch part {
	case review.PatchMeta:
		return a.paint(styleBold, line)
	case review.PatchHunk:
		return a.paint(styleCyan, line)
	case review.PatchRemoved:
		return a.paint(styleRed, line)
	case review.PatchAdded:
		return a.paint(styleGreen, line)
	}
	return line
}

// printDiff writes the human form: a line naming both sides, then one
// section per kind of change, each left out when empty (docs/cli.md#diff).
// With defaulted sides, a comparison of checkpoints says the working
// tree matches the newer: that is why it was not compared.
func (a *app) printDiff(w io.Writer, d *review.Diff, defaulted bool) {
	name := func(r *workspace.Resolved) string { return a.short(r.Session) + ":" + r.Checkpoint.Meta.CheckpointID }
	matches := ""
	if defaulted && !d.Worktree {
		matches = "; the working tree matches " + name(d.To)
	}
	switch {
	case d.Worktree:
		fmt.Fprintf(w, "%s → the working tree (not in a checkpoint yet)\n", name(d.From))
	case d.From == nil:
		fmt.Fprintf(w, "%s (the session's first checkpoint: everything in it is new%s)\n", name(d.To), matches)
	case matches != "":
		fmt.Fprintf(w, "%s → %s (%s)\n", name(d.From), name(d.To), strings.TrimPrefix(matches, "; "))
	default:
		fmt.Fprintf(w, "%s → %s\n", name(d.From), name(d.To))
	}
	empty := true
	section := func(title string) {
		fmt.Fprintf(w, "\n%s\n", a.paint(styleBold, title))
		empty = false
	}
	if len(d.Files) > 0 {
		t := review.Totals(d.Files)
		section(fmt.Sprintf("Files: %d changed, +%d -%d", t.Files, t.Added, t.Removed))
		names := make([]string, len(d.Files))
		wide := 0
		for i, f := range d.Files {
			names[i] = safetext.Path(f.Path)
			if f.From != "" {
				names[i] = safetext.Path(f.From) + " → " + safetext.Path(f.Path)
			}
			wide = max(wide, len([]rune(names[i])))
		}
		// Counts line up in a column, unless a long name would push
		// every line wide.
		wide = min(wide, 40)
		for i, f := range d.Files {
			pad := strings.Repeat(" ", max(wide-len([]rune(names[i])), 0))
			fmt.Fprintf(w, "  %s  %s%s  %s\n", a.paint(statusStyle(f.Status), f.Status), names[i], pad, lineCounts(f))
		}
	}
	if len(d.Task) > 0 {
		section("Task state:")
		for _, tc := range d.Task {
			fmt.Fprintf(w, "  %s: %q → %q\n", tc.Field, tc.From, tc.To)
		}
	}
	p := d.Plan
	if len(p.Steps) > 0 || p.FromDone != p.ToDone || p.FromTotal != p.ToTotal {
		progress := fmt.Sprintf("%d of %d done", p.ToDone, p.ToTotal)
		if p.FromDone != p.ToDone || p.FromTotal != p.ToTotal {
			progress = fmt.Sprintf("%d of %d done → %s", p.FromDone, p.FromTotal, progress)
		}
		section("Plan: " + progress)
		for _, s := range p.Steps {
			fmt.Fprintf(w, "  %s\n", review.StepChangeText(s))
		}
	}
	listed := func(title string, lines []string) {
		if len(lines) > 0 {
			section(title)
			for _, l := range lines {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	for _, kind := range []string{review.ChangeAdded, review.ChangeRemoved} {
		listed("Decisions "+kind+":", changeLines(d.Decisions, kind,
			func(dc review.DecisionChange) (string, string) { return dc.Change, review.DecisionText(dc.Decision) }))
	}
	for _, kind := range []string{review.ChangeAdded, review.ChangeRemoved} {
		listed("Failures "+kind+":", changeLines(d.Failures, kind,
			func(fc review.FailureChange) (string, string) { return fc.Change, review.FailureText(fc.FailureEntry) }))
	}
	if len(d.OpenItems) > 0 {
		section("Open items:")
		for _, o := range d.OpenItems {
			fmt.Fprintf(w, "  %s: %s\n", o.Change, oneLine(o.Text))
		}
	}
	if empty {
		fmt.Fprintln(w, "\nno changes")
	}
}

// statusStyle is a file status's colour: added green, deleted red, as
// git status has them.
func statusStyle(status string) string {
	switch status {
	case "A":
		return styleGreen
	case "D":
		return styleRed
	}
	return styleYellow
}

// lineCounts is a file's counts as the human form shows them.
func lineCounts(f review.FileDiff) string {
	switch f.Lines {
	case review.LinesBinary:
		return fmt.Sprintf("binary, %d → %d bytes", f.OldSize, f.NewSize)
	case review.LinesTooLarge:
		return fmt.Sprintf("not counted (over %d MiB)", review.MaxLineDiffBytes>>20)
	case review.LinesSubmodule:
		return "submodule"
	case review.LinesEstimated:
		return fmt.Sprintf("+%d -%d (estimated)", f.Added, f.Removed)
	}
	return fmt.Sprintf("+%d -%d", f.Added, f.Removed)
}

// diffResult is `ctxgit diff --json`: from is null for a session's first
// checkpoint.
type diffResult struct {
	Decisions []review.DecisionChange `json:"decisions"`
	Failures  []review.FailureChange  `json:"failures"`
	Files     []review.FileDiff       `json:"files"`
	From      *checkpointRef          `json:"from"`
	OpenItems []review.OpenItemChange `json:"open_items"`
	Plan      review.PlanDiff         `json:"plan"`
	Task      []taskChange            `json:"task"`
	To        *checkpointRef          `json:"to"`
	Totals    review.FileTotals       `json:"totals"`
	// Worktree is true when the working tree is compared: to is then
	// null.
	Worktree bool `json:"worktree"`
}

func diffJSON(d *review.Diff) diffResult {
	return diffResult{Decisions: d.Decisions, Failures: d.Failures, Files: d.Files, From: cpRef(d.From),
		OpenItems: d.OpenItems, Plan: d.Plan, Task: taskJSON(d.Task), To: cpRef(d.To), Totals: review.Totals(d.Files),
		Worktree: d.Worktree}
}

// checkpointRef names a checkpoint in JSON output.
type checkpointRef struct {
	CheckpointID string `json:"checkpoint_id"`
	Commit       string `json:"commit"`
	Session      string `json:"session"`
}

func cpRef(r *workspace.Resolved) *checkpointRef {
	if r == nil {
		return nil
	}
	return &checkpointRef{CheckpointID: r.Checkpoint.Meta.CheckpointID, Commit: r.Commit.String(), Session: r.Session}
}

// taskChange is one task-state field that changed.
type taskChange struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}

func taskJSON(tcs []workspace.TaskChange) []taskChange {
	out := []taskChange{}
	for _, tc := range tcs {
		out = append(out, taskChange{Field: tc.Field, From: tc.From, To: tc.To})
	}
	return out
}

// changeLines is the text of each item whose change is kind, in order.
func changeLines[T any](items []T, kind string, of func(T) (change, text string)) []string {
	var out []string
	for _, it := range items {
		if c, t := of(it); c == kind {
			out = append(out, t)
		}
	}
	return out
}

// isFetched reports whether a session is one fetched from a remote
// (REMOTE/KEY): its checkpoints are another machine's work, not this
// working tree's.
func isFetched(session string) bool { return strings.Contains(session, "/") }
