package main

import (
	"bufio"
	"fmt"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create .ctxgit/ (config, logs, .gitignore) and the checkpoint store; --host installs a host's hooks",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.StringSliceFlag{Name: "host", Usage: "install hooks for a host: claude-code, codex, gemini, cursor, openclaw (repeatable)"},
			&cli.BoolFlag{Name: "local", Usage: "Claude Code: write .claude/settings.local.json (private) instead of settings.json"},
			&cli.BoolFlag{Name: "uninstall", Usage: "with --host: remove ctxgit's hooks only"},
		},
		Action: func(c *cli.Context) error {
			if err := args(c, 0, 0); err != nil {
				return err
			}
			w, err := a.openToCreate(c)
			if err != nil {
				return err
			}
			hosts := c.StringSlice("host")
			if c.Bool("uninstall") {
				if len(hosts) == 0 {
					return spec.Usage("--uninstall needs --host")
				}
				results, err := a.installHosts(w, hosts, c.Bool("local"), true, c.Bool("json"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return a.printJSON(map[string]any{"root": w.Root, "hosts": results})
				}
				return nil
			}
			res, err := w.Init()
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				for _, f := range res.Created {
					fmt.Fprintf(a.stdout, "created %s\n", f)
				}
				for _, f := range res.Existing {
					fmt.Fprintf(a.stdout, "kept    %s (already there)\n", f)
				}
				fmt.Fprintf(a.stdout, "checkpoints go to the %s\n", res.Store)
			}
			results, err := a.installHosts(w, hosts, c.Bool("local"), false, c.Bool("json"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"root": w.Root, "created": nonNil(res.Created), "existing": nonNil(res.Existing), "store": res.Store, "hosts": results})
			}
			return nil
		},
	}
}

func (a *app) checkpointCommand() *cli.Command {
	return &cli.Command{
		Name:  "checkpoint",
		Usage: "snapshot the workspace and state files onto the session's hidden ref",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.StringFlag{Name: "trigger", Value: spec.TriggerManual, Usage: "what took it: manual, auto-80pct, compaction, session-end, …"},
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "what is going on, in a line or two"},
			&cli.StringFlag{Name: "next", Usage: "the next action (default: from the task state or the plan)"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c, 0, 0)
			if err != nil {
				return err
			}
			progress := new(vcs.Progress)
			stop := a.startProgress(progress, c.Bool("json"))
			res, err := w.Checkpoint(workspace.CheckpointOptions{
				Session: sess, Trigger: c.String("trigger"), Message: c.String("message"), NextAction: c.String("next"),
				Progress: progress,
			})
			stop()
			if err != nil {
				return err
			}
			a.reportLeftOut(res, !res.SecretsReported)
			cp := res.Checkpoint
			if c.Bool("json") {
				return a.printJSON(map[string]any{
					"checkpoint_id": cp.Meta.CheckpointID, "session": cp.Meta.SessionKey, "commit": res.Commit.String(),
					"ref": res.Ref, "trigger": cp.Meta.Trigger, "created_at": cp.Meta.CreatedAt,
					"files": res.Snapshot.Files, "bytes": res.Snapshot.Bytes, "hashed": res.Snapshot.Hashed,
					"files_changed": cp.Resources.ChangedCount, "excluded_by_rule": res.Snapshot.Excluded,
					"excluded_tracked_by_rule": res.Snapshot.ExcludedTracked,
					"too_large":                nonNil(res.Snapshot.TooLarge), "nested_repositories": nonNil(res.Snapshot.Nested),
					"skipped": nonNil(res.Snapshot.Skipped), "problems": errorStrings(res.Problems),
				})
			}
			changed := "first checkpoint of the session"
			if cp.Meta.PreviousCheckpoint != "" {
				changed = fmt.Sprintf("%d files changed since %s", cp.Resources.ChangedCount, cp.Meta.PreviousCheckpoint)
			}
			fmt.Fprintf(a.stdout, "checkpoint %s · session %s · %s · %d files · commit %s on %s\n",
				cp.Meta.CheckpointID, cp.Meta.SessionKey, changed, res.Snapshot.Files, res.Commit.Short(), res.Ref)
			return nil
		},
	}
}

// reportSnapshot puts what a checkpoint left out, and why, on stderr.
func (a *app) reportSnapshot(res *workspace.CheckpointResult) { a.reportLeftOut(res, true) }

// reportLeftOut is reportSnapshot; secrets says whether to tell the
// secret exclusions, which `ctxgit checkpoint` tells once per session
// (again only when the counts change): hooks checkpoint often, and the
// same tracked fixtures need not be named every time.
func (a *app) reportLeftOut(res *workspace.CheckpointResult, secrets bool) {
	for _, p := range res.Problems {
		a.warn("%s", p.Error())
	}
	s := res.Snapshot
	if s.CacheNote != "" {
		a.warn("%s", s.CacheNote)
	}
	// Files git tracks are told apart: they are already in the user's
	// history, and often test fixtures.
	for _, rule := range sortedKeys(s.Excluded) {
		if !secrets {
			break
		}
		tracked := s.ExcludedTracked[rule]
		if n := s.Excluded[rule] - tracked; n > 0 {
			a.note("left out %d file(s) matching secret pattern %q", n, rule)
		}
		if tracked > 0 {
			a.note("left out %d file(s) git tracks matching secret pattern %q (never stored by ctxgit)", tracked, rule)
		}
	}
	for _, f := range s.TooLarge {
		a.note("left out %s: over snapshot.max_file_size", f)
	}
	for _, f := range s.Skipped {
		a.warn("left out %s", f)
	}
}

func (a *app) recoverCommand() *cli.Command {
	return &cli.Command{
		Name:      "recover",
		Usage:     "print the recovery block of the newest checkpoint, once",
		ArgsUsage: "[CHECKPOINT]",
		Flags: []cli.Flag{rootFlag, sessionFlag(),
			&cli.IntFlag{Name: "budget", Usage: "block size in characters (default: recovery.budget_chars)"},
			&cli.DurationFlag{Name: "max-age", Usage: "freshness window for automatic recovery (default: recovery.max_age)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json"},
			&cli.BoolFlag{Name: "write", Usage: "also write the block to " + spec.RecoveryFile},
			&cli.BoolFlag{Name: "peek", Usage: "show without marking the checkpoint recovered"},
			&cli.BoolFlag{Name: "force", Usage: "show even if already recovered"},
		},
		Action: func(c *cli.Context) error {
			if err := args(c, 0, 1); err != nil {
				return err
			}
			format := c.String("format")
			if c.Bool("json") {
				format = "json"
			}
			if format != "text" && format != "json" {
				return spec.Usage("--format %q: want text or json", format)
			}
			sess, err := session(c)
			if err != nil {
				return err
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			asJSON := func(res *workspace.RecoverResult) error {
				out := map[string]any{"block": res.Block, "note": res.Note, "marked": res.Marked, "written": res.Wrote}
				if r := res.Resolved; r != nil {
					out["session"], out["checkpoint_id"], out["commit"] = r.Session, r.Checkpoint.Meta.CheckpointID, r.Commit.String()
					out["age_seconds"] = int64(res.Age / time.Second)
				}
				return a.printJSON(out)
			}
			// The block is printed before the checkpoint is marked
			// recovered: a failed write (a closed pipe, a full disk)
			// leaves it due instead of lost.
			emit := func(res *workspace.RecoverResult) error {
				switch {
				case format == "json":
					res.Marked = !c.Bool("peek")
					return asJSON(res)
				case res.Wrote != "":
					return nil
				}
				_, err := fmt.Fprint(a.stdout, res.Block)
				return err
			}
			res, err := w.Recover(workspace.RecoverOptions{
				Session: sess, SessionGiven: c.IsSet("session"), Name: c.Args().First(),
				Budget: c.Int("budget"), MaxAge: c.Duration("max-age"),
				Peek: c.Bool("peek"), Force: c.Bool("force"), Write: c.Bool("write"),
				Status: w.PeekStatus(sess), Emit: emit,
			})
			if err != nil {
				return err
			}
			if res.Note != "" {
				a.note("%s", res.Note)
			}
			if res.Wrote != "" {
				a.note("wrote %s", res.Wrote)
			}
			if res.Block == "" && format == "json" {
				return asJSON(res)
			}
			return nil
		},
	}
}

func (a *app) logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "list a session's checkpoints, newest first",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.IntFlag{Name: "max-count", Aliases: []string{"n"}, Usage: "show at most this many"},
			&cli.BoolFlag{Name: "sessions", Usage: "list sessions and their newest checkpoint instead"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.readSessionWorkspace(c, 0, 0)
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
				out := []map[string]any{}
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
	}
}

func (a *app) listSessions(w *workspace.Workspace, asJSON bool) error {
	sessions, err := w.Sessions()
	if err != nil {
		return err
	}
	var rows []map[string]any
	for _, s := range sessions {
		entries, err := w.Log(s.Name, 1)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			rows = append(rows, entryJSON(entries[0]))
		}
	}
	// Sessions fetched from remotes follow, named REMOTE/KEY (SPEC §19.4).
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
			row["session"], row["remote"] = s.Name(), s.Remote
			rows = append(rows, row)
		}
	}
	if asJSON {
		return a.printJSON(nonNil(rows))
	}
	for _, r := range rows {
		fmt.Fprintf(a.stdout, "%s  %s  %s\n", r["session"], r["checkpoint_id"], r["created_at"])
	}
	return nil
}

func entryJSON(e workspace.Entry) map[string]any {
	return map[string]any{
		"checkpoint_id": e.CheckpointID, "session": e.Session, "commit": e.Commit.String(),
		"created_at": e.When.Format(time.RFC3339), "trigger": e.Trigger, "utilization": e.Utilization, "subject": e.Subject,
	}
}

func pct(util string) string {
	var f float64
	if _, err := fmt.Sscanf(util, "%f", &f); err != nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", f*100)
}

func (a *app) showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a checkpoint (default: the session's newest)",
		ArgsUsage: "[CHECKPOINT]",
		Flags:     []cli.Flag{rootFlag, jsonFlag, sessionFlag()},
		Action: func(c *cli.Context) error {
			w, sess, err := a.readSessionWorkspace(c, 0, 1)
			if err != nil {
				return err
			}
			r, err := w.ResolveRead(c.Args().First(), sess)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"commit": r.Commit.String(), "session": r.Session, "checkpoint": r.Checkpoint})
			}
			data, err := spec.MarshalCheckpoint(r.Checkpoint)
			if err != nil {
				return err
			}
			// The YAML as stored, with anything that could hide or
			// rewrite what a reader sees made visible (SPEC §10.1).
			fmt.Fprintf(a.stdout, "# commit %s (session %s)\n%s", r.Commit, r.Session, safetext.Visible(string(data)))
			return nil
		},
	}
}

var stepStatuses = map[string]spec.StepStatus{
	"done": spec.StepDone, "in-progress": spec.StepInProgress, "in_progress": spec.StepInProgress,
	"pending": spec.StepPending, "failed": spec.StepFailed,
}

func (a *app) planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "print the parsed plan, or mark a step",
		Flags: []cli.Flag{rootFlag, jsonFlag},
		Action: func(c *cli.Context) error {
			w, err := a.workspace(c, 0, 0)
			if err != nil {
				return err
			}
			st := w.ReadState()
			for _, p := range st.Problems {
				if fe, ok := p.(*spec.FileError); ok && fe.Path == st.PlanPath {
					return p
				}
			}
			if st.Plan == nil {
				return spec.NotFound("%s does not exist", st.PlanPath)
			}
			if c.Bool("json") {
				cur := st.Plan.Current()
				out := map[string]any{"path": st.PlanPath, "plan": st.Plan, "current_step": nil}
				if cur != nil {
					out["current_step"] = cur.Number
				}
				return a.printJSON(out)
			}
			a.printPlan(st.Plan)
			return nil
		},
		Subcommands: []*cli.Command{{
			Name:      "mark",
			Usage:     "mark a step done, in-progress, pending or failed (only that line changes)",
			ArgsUsage: "STEP STATUS",
			Flags:     []cli.Flag{rootFlag, jsonFlag, &cli.StringFlag{Name: "reason", Usage: "why it failed (for failed)"}},
			Action: func(c *cli.Context) error {
				if err := args(c, 2, 2); err != nil {
					return err
				}
				status, ok := stepStatuses[c.Args().Get(1)]
				if !ok {
					return spec.Usage("status %q: want done, in-progress, pending or failed", c.Args().Get(1))
				}
				if status == spec.StepFailed && strings.TrimSpace(c.String("reason")) == "" {
					return spec.Usage("marking a step failed needs --reason")
				}
				w, err := a.open(c)
				if err != nil {
					return err
				}
				plan, err := w.MarkStep(c.Args().Get(0), status, c.String("reason"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return a.printJSON(map[string]any{"path": w.Config.Paths.Plan, "plan": plan})
				}
				a.printPlan(plan)
				return nil
			},
		}},
	}
}

var statusMarks = map[spec.StepStatus]string{
	spec.StepDone: "[x]", spec.StepInProgress: "[>]", spec.StepPending: "[ ]", spec.StepFailed: "[!]",
}

func (a *app) printPlan(p *spec.Plan) {
	if p == nil {
		return
	}
	if p.Title != "" {
		fmt.Fprintf(a.stdout, "Plan: %s\n", oneLine(p.Title))
	}
	if p.Goal != "" {
		fmt.Fprintf(a.stdout, "Goal: %s\n", oneLine(p.Goal))
	}
	if p.DoneWhen != "" {
		fmt.Fprintf(a.stdout, "Done when: %s\n", oneLine(p.DoneWhen))
	}
	done, total := p.Progress()
	fmt.Fprintf(a.stdout, "Steps: %d of %d done\n", done, total)
	cur := p.Current()
	for _, s := range p.Steps {
		marker := "  "
		if cur != nil && s.Number == cur.Number {
			marker = "→ "
		}
		line := marker + statusMarks[s.Status] + " " + oneLine(s.Title())
		if s.FailReason != "" {
			line += " (failed: " + oneLine(s.FailReason) + ")"
		}
		if s.PivotTo != "" {
			line += " → step " + oneLine(s.PivotTo)
		}
		fmt.Fprintln(a.stdout, line)
	}
	for _, o := range p.OpenItems {
		fmt.Fprintf(a.stdout, "Open: %s\n", oneLine(o))
	}
}

func (a *app) decideCommand() *cli.Command {
	return &cli.Command{
		Name:      "decide",
		Usage:     "record a decision in the decisions log",
		ArgsUsage: "DECISION",
		Flags:     []cli.Flag{rootFlag, jsonFlag, &cli.StringFlag{Name: "why", Usage: "the reason"}},
		Action: func(c *cli.Context) error {
			w, err := a.workspace(c, 1, 1)
			if err != nil {
				return err
			}
			d, err := w.Decide(c.Args().First(), c.String("why"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"path": w.Config.Paths.Decisions, "decision": d})
			}
			fmt.Fprintf(a.stdout, "%s recorded in %s\n", d.ID, w.Config.Paths.Decisions)
			return nil
		},
	}
}

func (a *app) failCommand() *cli.Command {
	var types []string
	for _, t := range spec.FailureTypes {
		types = append(types, string(t))
	}
	return &cli.Command{
		Name:      "fail",
		Usage:     "record a failure in the failure log",
		ArgsUsage: "SUMMARY",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.StringFlag{Name: "type", Usage: "required: one of " + strings.Join(types, ", ")},
			&cli.StringFlag{Name: "action", Usage: "required: Retry, Pivot, Escalate or Abort"},
			&cli.StringFlag{Name: "lesson", Usage: "what to remember"},
			&cli.StringFlag{Name: "details", Usage: "more text for the entry"},
		},
		Action: func(c *cli.Context) error {
			if err := args(c, 1, 1); err != nil {
				return err
			}
			t, ok := spec.ParseFailureType(c.String("type"))
			if !ok {
				return spec.Usage("--type %q: want one of %s", c.String("type"), strings.Join(types, ", "))
			}
			act, ok := spec.ParseFailureAction(c.String("action"))
			if !ok {
				return spec.Usage("--action %q: want Retry, Pivot, Escalate or Abort", c.String("action"))
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			e, path, err := w.Fail(spec.FailureEntry{Summary: c.Args().First(), Type: t, Action: act, Lesson: c.String("lesson"), Body: c.String("details")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(map[string]any{"path": path, "failure": e})
			}
			fmt.Fprintf(a.stdout, "failure recorded in %s (%s → %s)\n", path, e.Type, e.Action)
			return nil
		},
	}
}

func (a *app) versionCommand() *cli.Command {
	return &cli.Command{
		Name:        "version",
		Usage:       "print the version, commit and build date (also: ctxgit --version)",
		Flags:       []cli.Flag{rootFlag, jsonFlag},
		Description: examples("ctxgit version", "ctxgit version --json"),
		Action: func(c *cli.Context) error {
			if err := args(c, 0, 0); err != nil {
				return err
			}
			b := buildInfo()
			if c.Bool("json") {
				return a.printJSON(versionResult{buildStamp: b, Spec: spec.Version,
					CheckpointSchema: fmt.Sprintf("%s v%d", spec.CheckpointSchema, spec.CheckpointSchemaVersion)})
			}
			_, err := fmt.Fprintln(a.stdout, b)
			return err
		},
	}
}

// versionResult is `ctxgit version --json`.
type versionResult struct {
	buildStamp
	Spec             string `json:"spec"`
	CheckpointSchema string `json:"checkpoint_schema"`
}

// nonNil makes a nil slice an empty one, so JSON prints [] and not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func errorStrings(errs []error) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, oneLine(e.Error()))
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
