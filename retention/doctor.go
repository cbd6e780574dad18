package retention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// Finding levels of `ctxgit doctor` (docs/cli.md#doctor).
const (
	FindingOK      = workspace.FindingOK
	FindingNote    = workspace.FindingNote
	FindingWarning = workspace.FindingWarning
	FindingProblem = workspace.FindingProblem
)

// Finding is one result of a doctor check.
type Finding = workspace.Finding

// DoctorOptions are the inputs of `ctxgit doctor`.
type DoctorOptions struct {
	// Fix applies the safe repairs: removing stale locks, repacking.
	Fix bool
	// LooseThreshold is the count of loose objects above which a repack
	// is suggested (and done by Fix).
	LooseThreshold int
	// Ctx, when not nil, interrupts doctor (Ctrl-C): a repack under Fix
	// stops before it publishes anything, and Doctor returns ctx's error.
	Ctx context.Context
	// Hooks is the check of the host hooks installed in the workspace
	// (docs/cli.md#doctor). Host configs are host code, which sits above
	// workspace (ARCHITECTURE.md), so the command composes it in; nil
	// leaves the check out. fix is Fix, unless doctor was interrupted:
	// the repairs the check may make then wait for the next run.
	Hooks func(w *workspace.Workspace, fix bool) []Finding
}

// DefaultLooseThreshold is the loose object count above which doctor
// suggests a repack: git's own gc.auto is 6700 for a whole repository,
// and ctxgit's share of one should stay well below that.
const DefaultLooseThreshold = 1000

// DoctorResult is every finding, in the order the checks ran.
type DoctorResult struct {
	Findings []Finding
}

// Problems counts the problems that remain (not fixed).
func (r *DoctorResult) Problems() int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == FindingProblem && !f.Fixed {
			n++
		}
	}
	return n
}

func (r *DoctorResult) add(f Finding) *Finding {
	r.Findings = append(r.Findings, f)
	return &r.Findings[len(r.Findings)-1]
}

// Doctor checks the workspace's health (docs/cli.md#doctor): config and state
// files, locks, the store's refs and objects, host hooks, and what the
// last snapshot left out as secrets. With opts.Fix it removes stale locks
// and repacks, reporting each fix. configErr is the config problem
// OpenForDoctor found, if any. It never creates .ctxgit/ or a store.
// Interrupted (opts.Ctx) before its repack is published, it returns the
// context's error and no result, having fixed nothing more since the
// interrupt; interrupted after, it returns what it did and fixes nothing
// more.
func Doctor(w *workspace.Workspace, opts DoctorOptions, configErr error) (*DoctorResult, error) {
	// Each step that may fix something first asks whether the command was
	// interrupted: after Ctrl-C nothing more is removed or repacked.
	stopped := func() error { return workspace.ContextErr(opts.Ctx) }
	r := &DoctorResult{}
	doctorConfig(w, r, configErr)
	doctorState(w, r)
	store, storeErr := w.DiskStore()
	if err := stopped(); err != nil {
		return nil, err
	}
	doctorLocks(w, r, store, opts.Fix)
	seen, healthy := doctorStore(w, r, store, storeErr, opts.Fix)
	if err := stopped(); err != nil {
		return nil, err
	}
	if store != nil {
		if err := doctorObjects(w, r, store, seen, healthy, opts); err != nil {
			return nil, err
		}
	}
	fix := opts.Fix
	if err := stopped(); err != nil {
		if !repacked(r) {
			return nil, err
		}
		// The repack is published: report it, and fix nothing more.
		fix = false
	}
	doctorTemp(w, r, store, fix)
	if opts.Hooks != nil {
		for _, f := range opts.Hooks(w, fix) {
			r.add(f)
		}
	}
	doctorHookLog(w, r)
	if healthy {
		doctorSecrets(w, r)
	}
	return r, nil
}

// repacked reports whether doctor's repack ran to its end.
func repacked(r *DoctorResult) bool {
	for _, f := range r.Findings {
		if f.Check == "objects" && f.Fixed {
			return true
		}
	}
	return false
}

func doctorConfig(w *workspace.Workspace, r *DoctorResult, configErr error) {
	switch _, err := os.Stat(w.Path(spec.ConfigPath)); {
	case configErr != nil:
		r.add(Finding{Check: "config", Level: FindingProblem, Message: w.Rel(configErr.Error()), Fix: "edit the file (SPEC §11)"})
	case errors.Is(err, fs.ErrNotExist):
		r.add(Finding{Check: "config", Level: FindingOK, Message: "no " + spec.ConfigPath + ": the defaults apply"})
	default:
		r.add(Finding{Check: "config", Level: FindingOK, Message: spec.ConfigPath + " is valid"})
	}
	// What the config asks for beyond the defaults' protection (SPEC
	// §11.1), every time: the stderr notice is once per clone.
	t := w.Trust
	if len(t.Weakenings) == 0 {
		return
	}
	var keys []string
	for _, wk := range t.Weakenings {
		keys = append(keys, wk.Key+": "+wk.Value+" ("+wk.Why+")")
	}
	if t.Accepted {
		r.add(Finding{Check: "config", Level: FindingOK, Message: fmt.Sprintf("%s settings weaker than the defaults, accepted in git config (%s %s): %s",
			spec.ConfigPath, spec.AcceptConfigKey, t.Token, safetext.Line(strings.Join(keys, "; ")))})
		return
	}
	r.add(Finding{Check: "config", Level: FindingWarning,
		Message: fmt.Sprintf("%s asks for %s weaker than the defaults, not applied until you accept them (SPEC §11.1): %s",
			spec.ConfigPath, spec.Plural(len(keys), "setting"), safetext.Line(strings.Join(keys, "; "))),
		Fix: "if you trust this repository's settings: " + w.AcceptCommand()})
}

func doctorState(w *workspace.Workspace, r *DoctorResult) {
	st := w.ReadState()
	problems := st.Problems
	task, err := w.ReadTaskState()
	if err != nil {
		problems = append(problems, err)
	}
	for _, p := range problems {
		r.add(Finding{Check: "state", Level: FindingProblem, Message: w.Rel(safetext.Line(p.Error())), Fix: "edit the file; checkpoints leave it out until it reads"})
	}
	if len(problems) > 0 {
		return
	}
	var present []string
	for _, p := range []string{st.PlanPath, st.FailurePath, st.DecisionsPath} {
		if w.StateFileExists(p) {
			present = append(present, p)
		}
	}
	if task != nil && task.Exists {
		present = append(present, task.Path)
	}
	if len(present) == 0 {
		r.add(Finding{Check: "state", Level: FindingOK, Message: "no state files yet"})
		return
	}
	r.add(Finding{Check: "state", Level: FindingOK, Message: "valid: " + strings.Join(present, ", ")})
}

// The parts of the store each doctor check reads, so that each takes no
// more than it uses; store is nil where the workspace has none yet.
type (
	scannedStore interface {
		vcs.Store
		vcs.GitDir
		vcs.RefScanner
	}
	tempStore interface {
		vcs.GitDir
		vcs.TempCleaner
	}
)

// doctorLocks finds a stale workspace lock and stale ref locks (SPEC §13),
// and with fix removes them under the same rules a waiting process uses.
func doctorLocks(w *workspace.Workspace, r *DoctorResult, store vcs.RefLocker, fix bool) {
	before := len(r.Findings)
	defer func() {
		if len(r.Findings) == before {
			r.add(Finding{Check: "locks", Level: FindingOK, Message: "no locks held, none left behind"})
		}
	}()
	rel := spec.LocalDir + "/lock"
	if holder := w.HeldLock(); holder != nil {
		who := fmt.Sprintf("pid %d on %s since %s", holder.PID, holder.Host, holder.Started.Format(time.RFC3339))
		if holder.PID == 0 {
			who = "unreadable content (a writer killed between create and write)"
		}
		if holder.Stale {
			f := r.add(Finding{Check: "locks", Level: FindingProblem, Message: fmt.Sprintf("stale workspace lock %s: %s", rel, who),
				Fix: "--fix removes it"})
			if fix && holder.Remove() {
				f.Fixed, f.Fix = true, "removed"
			}
		} else {
			r.add(Finding{Check: "locks", Level: FindingNote, Message: fmt.Sprintf("workspace lock %s held by %s", rel, who)})
		}
	}
	if store == nil {
		return
	}
	locks, err := store.RefLocks(spec.RefPrefix)
	if err != nil {
		r.add(Finding{Check: "locks", Level: FindingProblem, Message: w.Rel(err.Error())})
		return
	}
	for _, l := range locks {
		name := w.Rel(l.Path)
		if !l.Stale() {
			r.add(Finding{Check: "locks", Level: FindingNote, Message: fmt.Sprintf("ref lock %s is %s old: a ref update is under way", name, l.Age.Round(time.Second))})
			continue
		}
		f := r.add(Finding{Check: "locks", Level: FindingProblem,
			Message: fmt.Sprintf("stale ref lock %s (%s old): left by a killed process; it blocks checkpoints of that ref for 30s each time", name, l.Age.Round(time.Second)),
			Fix:     "--fix removes it"})
		if fix && store.RemoveStaleRefLock(l.Path) {
			f.Fixed, f.Fix = true, "removed"
		}
	}
}

// doctorStore checks that every ref under refs/ctxgit/ reads and reaches
// a complete history, and that this workspace's session heads hold valid
// checkpoints; openErr is why the store did not open. It returns the
// objects the refs reach, and whether everything read.
func doctorStore(w *workspace.Workspace, r *DoctorResult, store scannedStore, openErr error, fix bool) (map[vcs.Hash]bool, bool) {
	if openErr != nil {
		r.add(Finding{Check: "store", Level: FindingProblem, Message: w.Rel(openErr.Error())})
		return nil, false
	}
	if store == nil {
		r.add(Finding{Check: "store", Level: FindingNote, Message: "no checkpoint store yet: the first checkpoint creates " + spec.PrivateStoreDir})
		return nil, true
	}
	if w.CommittedStore {
		// SPEC §3.4: a store that came with the clone is not used.
		r.add(Finding{Check: "store", Level: FindingWarning,
			Message: "the repository tracks " + spec.PrivateStoreDir + ": ctxgit keeps its checkpoints in the repository's own store and never uses that one (its config, hooks and remotes are whoever committed it)"})
	}
	healthy := true
	refs, problems := store.ScanRefs(spec.RefPrefix)
	for _, p := range problems {
		healthy = false
		r.add(Finding{Check: "store", Level: FindingProblem, Message: w.Rel(p.Error()),
			Fix: "move the file away or delete the ref (git update-ref -d REF) and take a new checkpoint"})
	}
	seen := map[vcs.Hash]bool{}
	quarantined := 0
	for _, ref := range refs {
		if strings.HasPrefix(ref.Name, workspace.QuarantinePrefix) {
			quarantined++
			orig := spec.RefPrefix + strings.TrimPrefix(ref.Name, workspace.QuarantinePrefix)
			r.add(Finding{Check: "store", Level: FindingNote, Message: fmt.Sprintf("%s (at %s) is quarantined: ctxgit's listings leave it out", ref.Name, ref.ID.Short()),
				Fix: fmt.Sprintf("once its objects are restored, move it back (git update-ref %s %s && git update-ref -d %s); or delete it (git update-ref -d %s)", orig, ref.ID, ref.Name, ref.Name)})
			continue
		}
		// Every ctxgit ref names a checkpoint commit: one at a blob (which
		// plain git fetch writes as readily as any), at a missing object
		// (a commit git gc --prune=now removed), at one that does not
		// read or whose checkpoint record is gone fails every reader of
		// it; listings skip it (SPEC §7.5) and --fix moves it out of
		// their way.
		if err := workspace.HeadStored(store, ref.ID); err != nil {
			f := r.add(Finding{Check: "store", Level: FindingProblem,
				Message: fmt.Sprintf("%s points at %s, which does not read as a checkpoint commit: %s", ref.Name, ref.ID.Short(), w.Rel(safetext.Line(err.Error()))),
				Fix:     "--fix moves it to " + workspace.QuarantinePrefix + strings.TrimPrefix(ref.Name, spec.RefPrefix)})
			if fix {
				if to, qerr := workspace.QuarantineRef(store, ref.Name, ref.ID); qerr == nil {
					f.Fixed, f.Fix = true, "moved to "+to
					quarantined++
					continue
				} else {
					f.Fix = "moving it failed: " + w.Rel(safetext.Line(qerr.Error()))
				}
			}
			healthy = false
			continue
		}
		err := vcs.WalkReachable(store, []vcs.Hash{ref.ID}, seen, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil })
		if err != nil {
			healthy = false
			r.add(Finding{Check: "store", Level: FindingProblem, Message: fmt.Sprintf("%s: %s", ref.Name, w.Rel(safetext.Line(err.Error()))),
				Fix: "restore the missing objects from a backup or clone, or delete the ref (git update-ref -d " + ref.Name + ")"})
		}
	}
	if healthy {
		sessions, err := w.Sessions()
		if err == nil {
			for _, s := range sessions {
				if _, err := workspace.ReadCheckpointAt(store, s.ID); err != nil {
					healthy = false
					r.add(Finding{Check: "store", Level: FindingProblem, Message: fmt.Sprintf("session %s: newest checkpoint: %s", s.Name, w.Rel(safetext.Line(err.Error())))})
				}
			}
		}
	}
	if healthy {
		shown := w.Rel(store.CommonDir())
		if !filepath.IsAbs(shown) {
			shown = filepath.ToSlash(shown) // .ctxgit/store.git on Windows too, as init names it
		}
		r.add(Finding{Check: "store", Level: FindingOK, Message: fmt.Sprintf("%s under %s in %s, every chain and tree readable (%d objects)",
			spec.Plural(len(refs)-quarantined, "ref"), spec.RefPrefix, shown, len(seen))})
	}
	return seen, healthy
}

// doctorObjects counts loose objects and, above the threshold, suggests
// (or with --fix runs) the repack of SPEC §14.4.
// Its error is the context's, when the repack was interrupted.
func doctorObjects(w *workspace.Workspace, r *DoctorResult, store vcs.ObjectFiles, seen map[vcs.Hash]bool, healthy bool, opts DoctorOptions) error {
	// A pack git would refuse is not read: its objects count as absent
	// and checkpoints write them again (issue 13 item 4), but the file
	// stays until someone moves it.
	bad, err := store.BadPacks()
	if err != nil {
		r.add(Finding{Check: "objects", Level: FindingProblem, Message: w.Rel(safetext.Line(err.Error()))})
	}
	for _, b := range bad {
		r.add(Finding{Check: "objects", Level: FindingProblem, Message: "unreadable pack, not used: " + w.Rel(safetext.Line(b.Error())),
			Fix: "move the pack and its .idx out of objects/pack (git fsck names what they held); checkpoints already write their objects again"})
	}
	count, bytes, err := store.LooseObjects()
	if err != nil {
		r.add(Finding{Check: "objects", Level: FindingProblem, Message: w.Rel(err.Error())})
		return nil
	}
	ours := count
	msg := fmt.Sprintf("%s, %s", spec.Plural(count, "loose object"), HumanBytes(bytes))
	if w.Repo != nil {
		// In a shared repository only ctxgit's share is ctxgit's to pack.
		ours = 0
		for h := range seen {
			if store.IsLoose(h) {
				ours++
			}
		}
		msg = fmt.Sprintf("%s in the repository, %d of them reachable from %s", spec.Plural(count, "loose object"), ours, spec.RefPrefix)
	}
	if ours <= opts.LooseThreshold {
		r.add(Finding{Check: "objects", Level: FindingOK, Message: msg})
		return nil
	}
	f := r.add(Finding{Check: "objects", Level: FindingWarning, Message: fmt.Sprintf("%s: over %d, a repack would help", msg, opts.LooseThreshold),
		Fix: "--fix repacks (or run ctxgit prune)"})
	if !opts.Fix || !healthy {
		if opts.Fix {
			f.Fix = "not repacked: the store has problems to fix first"
		}
		return nil
	}
	res, err := repack(opts.Ctx, w)
	if err != nil {
		if cerr := workspace.ContextErr(opts.Ctx); cerr != nil {
			return cerr
		}
		f.Fix = "repack failed: " + w.Rel(safetext.Line(err.Error()))
		return nil
	}
	f.Fixed = true
	f.Fix = "repacked: " + RepackSummary(res)
	return nil
}

// doctorTemp reports the temporary files interrupted writes left in the
// object directory and in the workspace (issue 13 item 13), with their
// count and size; with fix it removes those no live writer can own:
// ctxgit's whose writer is not running, git's past git prune's two weeks.
func doctorTemp(w *workspace.Workspace, r *DoctorResult, store tempStore, fix bool) {
	before := len(r.Findings)
	if store != nil {
		private := w.Repo == nil
		files, err := store.TempFiles(private)
		if err != nil {
			r.add(Finding{Check: "temp", Level: FindingProblem, Message: w.Rel(safetext.Line(err.Error()))})
		}
		var stale, live []vcs.TempFile
		for _, f := range files {
			if f.Removable {
				stale = append(stale, f)
			} else {
				live = append(live, f)
			}
		}
		objects := w.Rel(filepath.Join(store.CommonDir(), "objects"))
		if len(stale) > 0 {
			f := r.add(Finding{Check: "temp", Level: FindingWarning,
				Message: fmt.Sprintf("%s in %s left by interrupted writes, %s", spec.Plural(len(stale), "temporary file"), objects, HumanBytes(tempBytes(stale))),
				Fix:     "--fix removes them"})
			if fix {
				if n, size, err := store.RemoveStaleTemp(private); err == nil && n > 0 {
					f.Fixed, f.Fix = true, fmt.Sprintf("removed %d (%s)", n, HumanBytes(size))
				}
			}
		}
		if len(live) > 0 {
			r.add(Finding{Check: "temp", Level: FindingNote,
				Message: fmt.Sprintf("%s in %s, %s, kept: a running writer may own them", spec.Plural(len(live), "temporary file"), objects, HumanBytes(tempBytes(live))),
				Fix:     "ctxgit's go once their writer has exited, git's after two weeks (as git prune does)"})
		}
	}
	if found := w.FindStrayTemps(); found.Len() > 0 {
		f := r.add(Finding{Check: "temp", Level: FindingWarning,
			Message: fmt.Sprintf("%s in the workspace left by killed ctxgit writes, %s: %s", spec.Plural(found.Len(), "temporary file"), HumanBytes(found.Size()), listShort(found.Paths())),
			Fix:     "--fix removes them"})
		if fix {
			if n, size := found.Remove(); n > 0 {
				f.Fixed, f.Fix = true, fmt.Sprintf("removed %d (%s)", n, HumanBytes(size))
			}
		}
	}
	if len(r.Findings) == before {
		r.add(Finding{Check: "temp", Level: FindingOK, Message: "no temporary files left by interrupted writes"})
	}
}

func tempBytes(files []vcs.TempFile) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}

// listShort names the first three files, then how many more.
func listShort(found []string) string {
	var names []string
	for i, t := range found {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(found)-i))
			break
		}
		names = append(names, safetext.Path(t))
	}
	return strings.Join(names, ", ")
}

// doctorSecrets names what the newest checkpoint's snapshot left out as
// secrets, so a person can see nothing they need was withheld.
func doctorSecrets(w *workspace.Workspace, r *DoctorResult) {
	newest, err := w.Newest()
	if err != nil || newest == nil {
		return
	}
	ex := newest.Checkpoint.Snapshot.Excluded
	name := w.ShortSession(newest.Session) + ":" + newest.Checkpoint.Meta.CheckpointID
	if len(ex) == 0 {
		r.add(Finding{Check: "secrets", Level: FindingOK, Message: fmt.Sprintf("the newest checkpoint (%s) left out no file as a secret", name)})
		return
	}
	rules := make([]string, 0, len(ex))
	for rule := range ex {
		rules = append(rules, rule)
	}
	sort.Strings(rules)
	for _, rule := range rules {
		r.add(Finding{Check: "secrets", Level: FindingNote,
			Message: fmt.Sprintf("the newest checkpoint (%s) left out %s matching secret pattern %q", name, spec.Plural(ex[rule], "file"), rule),
			Fix:     "snapshot.secret_excludes in " + spec.ConfigPath + " decides what counts as a secret"})
	}
}

// RepackSummary is one line saying what a repack did.
func RepackSummary(r *RepackResult) string {
	if r == nil {
		return "no store"
	}
	s := spec.Plural(r.Reachable, "object") + " reachable"
	if r.Packed > 0 {
		s += fmt.Sprintf(", %d packed into %s (%s)", r.Packed, r.Pack, HumanBytes(r.PackBytes))
	}
	s += "; removed " + spec.Plural(r.RemovedLoose, "loose object")
	if r.RemovedPacks > 0 {
		s += ", " + spec.Plural(r.RemovedPacks, "pack")
	}
	if r.RemovedTemp > 0 {
		s += ", " + spec.Plural(r.RemovedTemp, "temporary file")
	}
	rec := r.Reclaimed()
	if rec >= 0 {
		return s + fmt.Sprintf("; %s reclaimed", HumanBytes(rec))
	}
	return s + fmt.Sprintf("; %s more used", HumanBytes(-rec))
}

// HumanBytes is a byte count with a binary unit: 512 B, 4.0 KiB, 1.5 MiB.
func HumanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n), "B"
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 {
			break
		}
		f, unit = f/1024, u
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}
