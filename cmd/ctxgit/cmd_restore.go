package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/restore"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) restoreCommand() *cli.Command {
	return args("CHECKPOINT", "-- PATHS...").orSay("restore takes a checkpoint, then optionally -- PATHS, or paths alone (see ctxgit restore --help)").command(&cli.Command{
		Name:  "restore",
		Usage: "bring files back from a checkpoint's snapshot, after a safety checkpoint",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.BoolFlag{Name: "delete", Usage: "also delete files the checkpoint does not hold (default: keep them)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "list every change and change nothing"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite content the safety checkpoint cannot hold (secrets, files over the size cap, ignored files)"},
			&cli.BoolFlag{Name: "keep-state", Usage: "leave the plan, logs, task state and summaries as they are"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			if first := c.Args().First(); !workspace.IsCheckpointName(first) {
				// restore PATH…: each path from the newest checkpoint
				// that holds it, one restore per such checkpoint.
				sources, err := restore.Sources(w, sess, c.Args().Slice())
				if err != nil {
					return err
				}
				for _, src := range sources {
					a.note("%s from %s:%s, the newest checkpoint that holds it", strings.Join(src.Paths, ", "), a.short(src.Session), src.CheckpointID)
					if err := a.restoreFrom(c, w, sess, src.Name, src.Paths); err != nil {
						return err
					}
				}
				return nil
			}
			return a.restoreFrom(c, w, sess, c.Args().First(), c.Args().Slice()[1:])
		},
	})
}

// restoreFrom restores paths (none: the whole snapshot) from the
// checkpoint name names, and prints what it did.
func (a *app) restoreFrom(c *cli.Context, w *workspace.Workspace, sess, name string, paths []string) error {
	res, err := restore.Run(w, restore.Options{
		Name: name, Session: sess, Paths: paths,
		Delete: c.Bool("delete"), DryRun: c.Bool("dry-run"), Force: c.Bool("force"), KeepState: c.Bool("keep-state"), Ctx: c.Context,
	})
	if res != nil && res.Safety != nil {
		a.reportSnapshot(res.Safety)
	}
	if errors.Is(err, context.Canceled) && res != nil && res.Safety != nil {
		// Stopped between files: what is not restored yet is
		// as it was, and the safety checkpoint holds all of it.
		safety := a.short(sess) + ":" + res.Safety.Checkpoint.Meta.CheckpointID
		a.note("the safety checkpoint %s holds the workspace as it was before (ctxgit restore --delete %s puts it back)", safety, safety)
	}
	if res != nil && res.RemovedTemp > 0 {
		a.note("removed %s an interrupted write left behind", spec.Plural(res.RemovedTemp, "temporary file"))
	}
	var refused *restore.RefusedError
	if err != nil && !(errors.As(err, &refused) && res != nil && res.DryRun) {
		return err
	}
	// A dry run shows what it found, refusals included, and then
	// exits as the restore would.
	if c.Bool("json") {
		if perr := a.printJSON(restoreJSON(res, c)); perr != nil {
			return perr
		}
		return err
	}
	for _, ch := range res.Changes {
		line := fmt.Sprintf("%-6s %s", ch.Action, safetext.Path(ch.Path))
		if ch.Reason != "" {
			line += " (" + ch.Reason + ")"
		}
		fmt.Fprintln(a.stdout, line)
	}
	if err != nil {
		return err
	}
	// Checkpoints of this session are named by its short id, as people
	// read and type them (any SESSION: argument takes it); another
	// session's, or a fetched one's, keep their full key.
	short := w.ShortSession(sess)
	fromSession := w.ShortSession(res.From.Session)
	from := fromSession + ":" + res.From.Checkpoint.Meta.CheckpointID
	switch {
	case res.DryRun:
		fmt.Fprintf(a.stdout, "dry run: restoring %s would %s; nothing was changed\n", from, restoreCounts(res, "create", "write", "delete", "keep"))
	case res.Safety == nil:
		fmt.Fprintf(a.stdout, "nothing to restore: the workspace matches %s (%d kept)\n", from, res.Count(restore.Keep))
	default:
		safety := short + ":" + res.Safety.Checkpoint.Meta.CheckpointID
		undo := "ctxgit restore --delete " + safety
		if len(paths) > 0 {
			undo += " --"
			for _, p := range paths {
				undo += " " + shellQuote(p)
			}
		}
		fmt.Fprintf(a.stdout, "restored %s: %s · safety checkpoint %s (undo: %s)\n", from, restoreCounts(res, "created", "wrote", "deleted", "kept"), safety, undo)
		if res.After != nil {
			fmt.Fprintf(a.stdout, "checkpoint %s:%s holds the restored workspace\n", short, res.After.Checkpoint.Meta.CheckpointID)
		}
	}
	return nil
}

// restoreCounts says how many paths each action took, in the given verbs.
func restoreCounts(res *restore.Result, create, write, del, keep string) string {
	return fmt.Sprintf("%s %d, %s %d, %s %d, %s %d", create, res.Count(restore.Create), write, res.Count(restore.Write),
		del, res.Count(restore.Delete), keep, res.Count(restore.Keep))
}

// restoreResult is `ctxgit restore --json`: safety_checkpoint is null
// for a dry run and when nothing changed.
type restoreResult struct {
	Changes    []restore.Change `json:"changes"`
	Checkpoint checkpointRef    `json:"checkpoint"`
	// Counts is the number of paths by action (create, write, delete,
	// keep, refuse).
	Counts    map[string]int `json:"counts"`
	Delete    bool           `json:"delete"`
	DryRun    bool           `json:"dry_run"`
	Force     bool           `json:"force"`
	KeepState bool           `json:"keep_state"`
	Paths     []string       `json:"paths"`
	// RestoredCheckpoint is the checkpoint the restore ended with.
	RestoredCheckpoint *checkpointRef `json:"restored_checkpoint"`
	SafetyCheckpoint   *checkpointRef `json:"safety_checkpoint"`
}

func restoreJSON(res *restore.Result, c *cli.Context) restoreResult {
	out := restoreResult{
		Changes:    nonNil(res.Changes),
		Checkpoint: checkpointRef{CheckpointID: res.From.Checkpoint.Meta.CheckpointID, Commit: res.From.Commit.String(), Session: res.From.Session},
		Counts:     map[string]int{},
		Delete:     c.Bool("delete"), DryRun: res.DryRun, Force: c.Bool("force"), KeepState: c.Bool("keep-state"),
		Paths: nonNil(res.Paths),
	}
	for _, action := range []string{restore.Create, restore.Write, restore.Delete, restore.Keep, restore.Refuse} {
		out.Counts[action] = res.Count(action)
	}
	if s := res.Safety; s != nil {
		out.SafetyCheckpoint = &checkpointRef{CheckpointID: s.Checkpoint.Meta.CheckpointID, Commit: s.Commit.String(), Session: s.Checkpoint.Meta.SessionKey}
	}
	if s := res.After; s != nil {
		out.RestoredCheckpoint = &checkpointRef{CheckpointID: s.Checkpoint.Meta.CheckpointID, Commit: s.Commit.String(), Session: s.Checkpoint.Meta.SessionKey}
	}
	return out
}

// shellQuote quotes a path for the undo command line a person copies.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+=,-", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
