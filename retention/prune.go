package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// PruneOptions are the inputs of `ctxgit prune` (SPEC §14). A nil limit
// takes the config's retention value.
type PruneOptions struct {
	DryRun      bool
	Keep        *int
	MaxIdleDays *int
	MaxSessions *int
	// Ctx, when not nil, interrupts the prune (Ctrl-C): it stops before
	// the rewritten checkpoints are stored or any ref moves, or, once the
	// refs have moved, during the repack, which then deletes nothing.
	Ctx context.Context
}

// What prune does to a session.
const (
	PruneKeep = "keep" // left as it is
	PruneTrim = "trim" // its oldest checkpoints removed, the chain rewritten
	PruneDrop = "drop" // removed whole: its ref is deleted
)

// SessionPrune is the plan (and, unless a dry run, the outcome) for one
// session.
type SessionPrune struct {
	Session     string
	Action      string
	Reason      string // why a session is dropped or left alone
	Checkpoints int    // on the chain before
	Kept        int
	// Oldest is the id of the oldest checkpoint kept ("" when none is).
	Oldest string
	// Dropped lists the checkpoint ids that go, oldest first.
	Dropped  []string
	Newest   string    // the newest checkpoint's id
	NewestAt time.Time // and its time
	OldHead  vcs.Hash
	NewHead  vcs.Hash // zero for a dropped session

	chain []workspace.Entry // newest first
	merge bool              // the chain holds a commit with several parents
}

// PruneResult is what prune did, or with DryRun would do.
type PruneResult struct {
	DryRun      bool
	Keep        int
	MaxIdleDays int
	MaxSessions int
	Sessions    []SessionPrune
	// Private is true when the store is ctxgit's own .ctxgit/store.git,
	// which is repacked whole; in a repository only ctxgit's loose objects
	// are packed and git's gc collects the rest (SPEC §14.4).
	Private bool
	Repack  *RepackResult // nil on a dry run or without a store
}

// RepackResult is what a repack did, as prune and doctor report it; named
// here so that the command layer need not import vcs (ARCHITECTURE.md).
type RepackResult = vcs.RepackResult

// Changed reports whether prune removes anything.
func (r *PruneResult) Changed() bool {
	for _, s := range r.Sessions {
		if s.Action != PruneKeep {
			return true
		}
	}
	return false
}

// Prune applies the retention rules of SPEC §14 to the workspace's
// sessions: each kept session keeps its newest checkpoints, idle sessions
// and sessions over the cap are dropped whole, and the store is repacked
// so the space comes back. Everything happens under the workspace lock,
// in an order that leaves every ref at a complete chain whenever the
// process dies (§14.3). A dry run takes no lock and changes nothing.
func Prune(w *workspace.Workspace, opts PruneOptions) (*PruneResult, error) {
	res := &PruneResult{DryRun: opts.DryRun, Keep: w.Config.Retention.Keep,
		MaxIdleDays: w.Config.Retention.MaxIdleDays, MaxSessions: w.Config.Retention.MaxSessions}
	for _, o := range []struct {
		flag string
		v    *int
		dst  *int
		min  int
	}{{"--keep", opts.Keep, &res.Keep, 1}, {"--max-idle-days", opts.MaxIdleDays, &res.MaxIdleDays, 0},
		{"--max-sessions", opts.MaxSessions, &res.MaxSessions, 0}} {
		if o.v == nil {
			continue
		}
		if *o.v < o.min {
			return nil, spec.Usage("%s must be at least %d, got %d", o.flag, o.min, *o.v)
		}
		*o.dst = *o.v
	}
	// Without a store there is nothing to prune, and no lock is taken:
	// taking one would create .ctxgit/local/ (SPEC §13).
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return res, nil
	}
	if !opts.DryRun {
		lock, err := w.LockContext(opts.Ctx)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	res.Private = w.Repo == nil
	if err := planPrune(w, store, res); err != nil {
		return nil, err
	}
	if opts.DryRun {
		return res, nil
	}
	if err := applyPrune(w, opts.Ctx, store, res); err != nil {
		return nil, err
	}
	rep, err := repackLocked(opts.Ctx, w)
	if err != nil {
		return res, fmt.Errorf("history pruned, but the repack failed (nothing was deleted by it): %w", err)
	}
	res.Repack = rep
	return res, nil
}

// planPrune reads every session's chain and decides its fate; it writes
// nothing.
func planPrune(w *workspace.Workspace, store vcs.Store, res *PruneResult) error {
	sessions, err := w.Sessions()
	if err != nil {
		return err
	}
	plans := make([]SessionPrune, 0, len(sessions))
	for _, s := range sessions {
		p := SessionPrune{Session: s.Name, Action: PruneKeep, OldHead: s.ID, NewHead: s.ID}
		merge := false
		for id := s.ID; !id.IsZero(); {
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return fmt.Errorf("session %s: %w", s.Name, err)
			}
			merge = merge || len(c.Parents) > 1
			e := workspace.EntryOf(id, c)
			p.chain = append(p.chain, e)
			id = e.Parent
		}
		p.Checkpoints = len(p.chain)
		p.Kept = p.Checkpoints
		p.Oldest = checkpointName(p.chain[len(p.chain)-1])
		p.Newest, p.NewestAt = checkpointName(p.chain[0]), p.chain[0].When
		p.merge = merge
		plans = append(plans, p)
	}

	// The workspace's newest checkpoint (SPEC §7.3) is never dropped, so
	// prune never leaves a workspace without history.
	newest := -1
	for i, p := range plans {
		if newest < 0 || p.NewestAt.After(plans[newest].NewestAt) {
			newest = i
		}
	}
	now := w.Now()
	if res.MaxIdleDays > 0 {
		limit := time.Duration(res.MaxIdleDays) * 24 * time.Hour
		for i := range plans {
			if idle := now.Sub(plans[i].NewestAt); i != newest && idle > limit {
				plans[i].drop(fmt.Sprintf("idle %d days, over retention.max_idle_days (%d)", int(idle/(24*time.Hour)), res.MaxIdleDays))
			}
		}
	}
	if res.MaxSessions > 0 {
		var live []int
		for i, p := range plans {
			if p.Action != PruneDrop {
				live = append(live, i)
			}
		}
		// Longest idle first; on a tie the key that sorts last, the
		// opposite of §7.3's tie-break, so the newest session goes last.
		sort.SliceStable(live, func(a, b int) bool {
			pa, pb := plans[live[a]], plans[live[b]]
			if !pa.NewestAt.Equal(pb.NewestAt) {
				return pa.NewestAt.Before(pb.NewestAt)
			}
			return pa.Session > pb.Session
		})
		for _, i := range live[:max(0, len(live)-res.MaxSessions)] {
			plans[i].drop(fmt.Sprintf("one of the longest idle over retention.max_sessions (%d)", res.MaxSessions))
		}
	}
	for i := range plans {
		p := &plans[i]
		if p.Action != PruneKeep || p.Checkpoints <= res.Keep {
			continue
		}
		if p.merge {
			// ctxgit writes linear chains; a merge is someone else's
			// history, and rewriting it would drop their other parents.
			p.Reason = "its chain holds a merge commit, which prune does not rewrite"
			continue
		}
		p.Action, p.Kept, p.Oldest = PruneTrim, res.Keep, checkpointName(p.chain[res.Keep-1])
		for j := len(p.chain) - 1; j >= res.Keep; j-- {
			p.Dropped = append(p.Dropped, checkpointName(p.chain[j]))
		}
	}
	res.Sessions = plans
	return nil
}

func (p *SessionPrune) drop(reason string) {
	p.Action, p.Reason, p.Kept, p.Oldest, p.NewHead = PruneDrop, reason, 0, "", vcs.ZeroHash
	p.Dropped = p.Dropped[:0]
	for j := len(p.chain) - 1; j >= 0; j-- {
		p.Dropped = append(p.Dropped, checkpointName(p.chain[j]))
	}
}

// checkpointName is a checkpoint's id, or its short commit id when the
// commit carries no Ctxgit-Checkpoint trailer.
func checkpointName(e workspace.Entry) string {
	if e.CheckpointID != "" {
		return e.CheckpointID
	}
	return e.Commit.Short()
}

// applyPrune carries out the plan: new commits made durable first, then
// the refs moved one by one with compare-and-swap, so a crash at any
// instant leaves every ref at a complete chain (SPEC §14.3).
func applyPrune(w *workspace.Workspace, ctx context.Context, store vcs.Store, res *PruneResult) error {
	if !res.Changed() {
		return nil
	}
	if err := workspace.ContextErr(ctx); err != nil {
		return err
	}
	batch, err := store.NewBatch()
	if err != nil {
		return err
	}
	remaps := map[string]map[vcs.Hash]vcs.Hash{}
	for i := range res.Sessions {
		p := &res.Sessions[i]
		if p.Action != PruneTrim {
			continue
		}
		kept := make([]vcs.Hash, p.Kept)
		for j := range kept {
			kept[j] = p.chain[j].Commit
		}
		head, ids, err := vcs.RewriteChain(store, batch, kept)
		if err == nil {
			err = workspace.ContextErr(ctx)
		}
		if err != nil {
			batch.Abort()
			return fmt.Errorf("session %s: %w", p.Session, err)
		}
		p.NewHead, remaps[p.Session] = head, ids
	}
	// The last moment to stop with nothing changed: from here the refs
	// move, each one a complete step, and all of them are moved.
	if err := workspace.ContextErr(ctx); err != nil {
		batch.Abort()
		return err
	}
	if err := batch.Commit(); err != nil {
		return fmt.Errorf("storing the rewritten checkpoints: %w", err)
	}
	// The stat cache names trees and an anchor commit that may be about to
	// go; a missing cache is rebuilt silently by the next checkpoint.
	if err := workspace.RemoveLocal(w.Root, w.LocalPath("statcache")); err != nil {
		return fmt.Errorf("%s/statcache: %w", spec.LocalDir, workspace.UnwrapPathError(err))
	}
	var done []string
	moved := func(err error, ref string) error {
		if errors.Is(err, vcs.ErrRefConflict) {
			err = spec.Conflict("%v", err)
		}
		if len(done) > 0 {
			return fmt.Errorf("prune stopped at %s (sessions %s already pruned; run it again): %w", ref, strings.Join(done, ", "), err)
		}
		return err
	}
	for _, p := range res.Sessions {
		ref := w.SessionRef(p.Session)
		switch p.Action {
		case PruneTrim:
			// Replay markers learn the new ids before the ref moves, so a
			// recovered checkpoint is never injected again (SPEC §10.3).
			if err := remapRecovered(w, p.Session, remaps[p.Session]); err != nil {
				return moved(err, ref)
			}
			if err := store.UpdateRef(ref, p.NewHead, p.OldHead); err != nil {
				return moved(err, ref)
			}
		case PruneDrop:
			if err := store.DeleteRef(ref, p.OldHead); err != nil {
				return moved(err, ref)
			}
			workspace.RemoveLocal(w.Root, w.RecoveredPath(p.Session))
		default:
			continue
		}
		done = append(done, p.Session)
	}
	return nil
}

// remapRecovered adds to a session's replay marker the new id of every
// recovered checkpoint that prune re-creates. The old ids stay: they are
// harmless, and the marker's own cap drops them in time.
func remapRecovered(w *workspace.Workspace, session string, ids map[vcs.Hash]vcs.Hash) error {
	path := w.RecoveredPath(session)
	data, err := workspace.ReadLocal(w.Root, path, workspace.MaxMarker)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	lines := strings.Fields(string(data))
	out := append([]string(nil), lines...)
	for _, l := range lines {
		if h, err := vcs.ParseHash(l); err == nil {
			if n, ok := ids[h]; ok && n != h {
				out = append(out, n.String())
			}
		}
	}
	if len(out) == len(lines) {
		return nil
	}
	return workspace.WriteLocal(w.Root, path, []byte(strings.Join(out, "\n")+"\n"), 0o644)
}
