package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/retention"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) pruneCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "prune",
		Usage: "keep each session's newest checkpoints, drop idle sessions, and repack the store (retention.* in the config)",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would go; change nothing"},
			&cli.IntFlag{Name: "keep", Usage: "checkpoints kept per session", DefaultText: "retention.keep, 50"},
			&cli.IntFlag{Name: "max-idle-days", Usage: "drop sessions idle longer; 0 = never", DefaultText: "retention.max_idle_days, 30"},
			&cli.IntFlag{Name: "max-sessions", Usage: "keep at most this many sessions; 0 = no cap", DefaultText: "retention.max_sessions, 500"},
		},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			opts := retention.PruneOptions{DryRun: c.Bool("dry-run"), Ctx: c.Context}
			for _, f := range []struct {
				name string
				dst  **int
			}{{"keep", &opts.Keep}, {"max-idle-days", &opts.MaxIdleDays}, {"max-sessions", &opts.MaxSessions}} {
				if c.IsSet(f.name) {
					v := c.Int(f.name)
					*f.dst = &v
				}
			}
			// A repack that fails after the refs moved still reports what
			// was pruned, then the error.
			res, err := retention.Prune(w, opts)
			if res != nil {
				if perr := a.printPrune(res, c.Bool("json")); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	})
}

func (a *app) printPrune(res *retention.PruneResult, asJSON bool) error {
	if asJSON {
		sessions := make([]pruneSession, 0, len(res.Sessions))
		for _, s := range res.Sessions {
			j := pruneSession{Session: s.Session, Action: s.Action, Reason: s.Reason, Checkpoints: s.Checkpoints,
				Kept: s.Kept, Dropped: nonNil(s.Dropped), Newest: s.Newest, NewestAt: s.NewestAt,
				OldestKept: s.Oldest, OldHead: s.OldHead.String()}
			if !s.NewHead.IsZero() {
				j.NewHead = s.NewHead.String()
			}
			sessions = append(sessions, j)
		}
		store := "repository"
		if res.Private {
			store = "private"
		}
		return a.printJSON(pruneResult{DryRun: res.DryRun, Keep: res.Keep, MaxIdleDays: res.MaxIdleDays, MaxSessions: res.MaxSessions,
			Repack: repackJSON(res.Repack), Sessions: sessions, Store: store})
	}
	if res.DryRun {
		fmt.Fprintln(a.stdout, "dry run: nothing is changed")
	}
	if len(res.Sessions) == 0 {
		fmt.Fprintln(a.stdout, "no checkpoints: nothing to prune")
	}
	would := func(done, dry string) string {
		if res.DryRun {
			return dry
		}
		return done
	}
	// Sessions by their short ids among the sessions prune went over
	// (those it dropped included), as people read them.
	keys := make([]string, len(res.Sessions))
	for i, s := range res.Sessions {
		keys[i] = s.Session
	}
	short := workspace.ShortIDs(keys)
	for _, s := range res.Sessions {
		name := short[s.Session]
		switch s.Action {
		case retention.PruneTrim:
			fmt.Fprintf(a.stdout, "%s: %s %d of %d checkpoints (%s), %s %s\n", name,
				would("kept", "would keep"), s.Kept, s.Checkpoints, idRange(s.Oldest, s.Newest),
				would("removed", "remove"), idRange(s.Dropped[0], s.Dropped[len(s.Dropped)-1]))
		case retention.PruneDrop:
			fmt.Fprintf(a.stdout, "%s: %s whole, %s (%s): %s\n", name,
				would("removed", "would remove"), spec.Plural(s.Checkpoints, "checkpoint"), idRange(s.Dropped[0], s.Dropped[len(s.Dropped)-1]), s.Reason)
		default:
			if s.Reason != "" {
				fmt.Fprintf(a.stdout, "%s: left alone, %s: %s\n", name, spec.Plural(s.Checkpoints, "checkpoint"), s.Reason)
			} else {
				fmt.Fprintf(a.stdout, "%s: %s, %s\n", name, would("kept", "would keep"), spec.Plural(s.Checkpoints, "checkpoint"))
			}
		}
	}
	if res.Repack != nil {
		fmt.Fprintf(a.stdout, "repack: %s\n", retention.RepackSummary(res.Repack))
		if !res.Private && res.Changed() {
			a.note("objects only the removed checkpoints held stay in the repository until git's own gc removes them (after gc.pruneExpire, two weeks by default)")
		}
	}
	return nil
}

// idRange names a run of checkpoints: "cp_004" or "cp_001…cp_003".
func idRange(oldest, newest string) string {
	if oldest == newest {
		return oldest
	}
	return oldest + "…" + newest
}

// pruneResult is `ctxgit prune --json`: repack is null when none ran.
type pruneResult struct {
	DryRun      bool           `json:"dry_run"`
	Keep        int            `json:"keep"`
	MaxIdleDays int            `json:"max_idle_days"`
	MaxSessions int            `json:"max_sessions"`
	Repack      *repackResult  `json:"repack"`
	Sessions    []pruneSession `json:"sessions"`
	Store       string         `json:"store"`
}

// pruneSession is what prune did, or would do, to one session.
type pruneSession struct {
	Session     string    `json:"session"`
	Action      string    `json:"action"`
	Reason      string    `json:"reason"`
	Checkpoints int       `json:"checkpoints"`
	Kept        int       `json:"kept"`
	Dropped     []string  `json:"dropped"`
	Newest      string    `json:"newest"`
	NewestAt    time.Time `json:"newest_at"`
	OldestKept  string    `json:"oldest_kept"`
	OldHead     string    `json:"old_head"`
	NewHead     string    `json:"new_head"`
}

// repackResult is what the repack after a prune did.
type repackResult struct {
	KeptRecent     int    `json:"kept_recent"`
	Pack           string `json:"pack"`
	PackBytes      int64  `json:"pack_bytes"`
	Packed         int    `json:"packed"`
	Reachable      int    `json:"reachable"`
	ReclaimedBytes int64  `json:"reclaimed_bytes"`
	RemovedBytes   int64  `json:"removed_bytes"`
	RemovedLoose   int    `json:"removed_loose"`
	RemovedPacks   int    `json:"removed_packs"`
	RemovedTemp    int    `json:"removed_temp"`
}

func repackJSON(r *retention.RepackResult) *repackResult {
	if r == nil {
		return nil
	}
	return &repackResult{KeptRecent: r.KeptRecent, Pack: r.Pack, PackBytes: r.PackBytes, Packed: r.Packed, Reachable: r.Reachable,
		ReclaimedBytes: r.Reclaimed(), RemovedBytes: r.RemovedBytes, RemovedLoose: r.RemovedLoose, RemovedPacks: r.RemovedPacks,
		RemovedTemp: r.RemovedTemp}
}
