package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) checkpointCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "checkpoint",
		Usage: "snapshot the workspace and state files onto the session's hidden ref",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag(),
			&cli.StringFlag{Name: "trigger", Value: spec.TriggerManual, Usage: "what took it: manual, auto-80pct, compaction, session-end, …"},
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "what is going on, in a line or two"},
			&cli.StringFlag{Name: "next", Usage: "the next action (default: from the task state or the plan)"},
		},
		Action: func(c *cli.Context) error {
			w, sess, err := a.sessionWorkspace(c)
			if err != nil {
				return err
			}
			// A person's checkpoint has no reading of its own: the
			// session's newest hook reading stands in when it is recent
			// (docs/cli.md#checkpoint).
			usage, _ := taskstate.RecentUsage(w, sess)
			progress := new(workspace.Progress)
			stop := a.startProgress(progress, c.Bool("json"))
			res, err := w.Checkpoint(workspace.CheckpointOptions{
				Session: sess, Trigger: c.String("trigger"), Message: c.String("message"), NextAction: c.String("next"),
				Usage: usage, Progress: progress, Ctx: c.Context,
			})
			stop()
			if err != nil {
				return err
			}
			a.reportLeftOut(res, !res.SecretsReported)
			cp := res.Checkpoint
			if !res.LostHead.IsZero() {
				a.warn("%s", workspace.LostHeadNote(w.ShortSession(cp.Meta.SessionKey), res.LostHead, cp.Meta.CheckpointID))
			}
			changedCount := cp.Resources.ChangedCount
			if res.Unchanged {
				changedCount = 0 // the head's own count is against its predecessor
			}
			if c.Bool("json") {
				return a.printJSON(checkpointResult{
					CheckpointID: cp.Meta.CheckpointID, Session: cp.Meta.SessionKey, Commit: res.Commit.String(),
					Ref: res.Ref, Trigger: cp.Meta.Trigger, CreatedAt: cp.Meta.CreatedAt,
					Files: res.Snapshot.Files, Bytes: res.Snapshot.Bytes, Hashed: res.Snapshot.Hashed,
					FilesChanged: changedCount, ExcludedByRule: res.Snapshot.Excluded, Unchanged: res.Unchanged,
					ExcludedTrackedByRule: res.Snapshot.ExcludedTracked,
					TooLarge:              nonNil(res.Snapshot.TooLarge), NestedRepositories: nonNil(res.Snapshot.Nested),
					Skipped: nonNil(res.Snapshot.Skipped), Problems: errorStrings(res.Problems),
				})
			}
			fmt.Fprintln(a.stdout, w.CheckpointLine(res))
			return nil
		},
	})
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
			a.note("left out %s matching secret pattern %q", spec.Plural(n, "file"), rule)
		}
		if tracked > 0 {
			a.note("left out %s git tracks matching secret pattern %q (never stored by ctxgit)", spec.Plural(tracked, "file"), rule)
		}
	}
	for _, f := range s.TooLarge {
		a.note("left out %s: over snapshot.max_file_size", f)
	}
	for _, f := range s.Skipped {
		a.warn("left out %s", f)
	}
}

// checkpointResult is `ctxgit checkpoint --json`; fields in the sorted
// order of their JSON names, as the map it replaced printed them.
type checkpointResult struct {
	Bytes                 int64          `json:"bytes"`
	CheckpointID          string         `json:"checkpoint_id"`
	Commit                string         `json:"commit"`
	CreatedAt             time.Time      `json:"created_at"`
	ExcludedByRule        map[string]int `json:"excluded_by_rule"`
	ExcludedTrackedByRule map[string]int `json:"excluded_tracked_by_rule"`
	Files                 int            `json:"files"`
	FilesChanged          int            `json:"files_changed"`
	Hashed                int            `json:"hashed"`
	NestedRepositories    []string       `json:"nested_repositories"`
	Problems              []string       `json:"problems"`
	Ref                   string         `json:"ref"`
	Session               string         `json:"session"`
	Skipped               []string       `json:"skipped"`
	TooLarge              []string       `json:"too_large"`
	Trigger               string         `json:"trigger"`
	Unchanged             bool           `json:"unchanged"`
}
