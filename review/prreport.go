package review

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// The parts of `ctxgit report` a pull request needs beyond one session's
// timeline (docs/cli.md#report): the plan's title, goal and checklist, what was
// recorded before the first checkpoint, files against the branch's merge
// base, several sessions merged, and a size GitHub accepts.

// ReportBase is where --base counts files from.
type ReportBase struct {
	Ref    string `json:"ref"`
	Commit string `json:"merge_base"`
	// Head is the repository's HEAD commit the files are counted to.
	Head string `json:"head"`
}

// existingDecisions are the decisions of the first checkpoint's log that
// the head still has: recorded before the first checkpoint.
func existingDecisions(first, head *cpState, base *workspace.Resolved) []ReportDecision {
	if first.bad.decisions || head.bad.decisions {
		return nil
	}
	var out []ReportDecision
	for _, d := range stillThere(first.decisions, head.decisions, decisionKey) {
		out = append(out, ReportDecision{base.Checkpoint.Meta.CheckpointID, DecisionChange{ChangeExisting, d}})
	}
	return out
}

// existingFailures are the failure-log entries of the first checkpoint
// that the head still has.
func existingFailures(first, head *cpState, base *workspace.Resolved) []ReportFailure {
	if first.bad.failures || head.bad.failures {
		return nil
	}
	var out []ReportFailure
	for _, f := range stillThere(first.failures, head.failures, failureKey) {
		out = append(out, ReportFailure{At: base.Checkpoint.Meta.CheckpointID, FailureChange: FailureChange{ChangeExisting, f}})
	}
	return out
}

// stillThere are the entries of first that head still has, matched by
// key: an entry first holds twice and head once is there once.
func stillThere[E any](first, head []E, key func(E) string) []E {
	kept := map[string]int{}
	for _, e := range head {
		kept[key(e)]++
	}
	var out []E
	for _, e := range first {
		if k := key(e); kept[k] > 0 {
			kept[k]--
			out = append(out, e)
		}
	}
	return out
}

func decisionKey(d spec.Decision) string { return fold(d.What) }

// sessionTimes maps the checkpoints of several sessions, named
// SESSION:cp_NNN (sessionCheckpoint), to their creation times.
type sessionTimes map[string]time.Time

func sessionCheckpoint(session, id string) string { return session + ":" + id }

// earlier orders two named checkpoints by time, then by name.
func (t sessionTimes) earlier(a, b string) bool {
	ta, tb := t[a], t[b]
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a < b
}

// mergeFirstShown merges one list of the sessions' reports (decisions or
// failures): each entry once, named by the earliest checkpoint that shows
// it, in time order. fields gives an entry's checkpoint and change, to
// rewrite; key tells the same entry again. An entry that was there
// before the first checkpoint of all (firstAt) stays "existing"; one the
// first checkpoint of a later session found was recorded during another
// session, so it is "added" there, and the two are the same entry.
func mergeFirstShown[E any](reps []*Report, when sessionTimes, firstAt string, list func(*Report) []E, fields func(*E) (at, change *string), key func(E) string) []E {
	var out []E
	index := map[string]int{}
	for _, r := range reps {
		for _, e := range list(r) {
			at, change := fields(&e)
			*at = sessionCheckpoint(r.Session, *at)
			if *change == ChangeExisting && *at != firstAt {
				*change = ChangeAdded // recorded before this session, during another
			}
			k := *change
			if k == ChangeExisting {
				k = ChangeAdded
			}
			k += "\x00" + key(e)
			if i, ok := index[k]; ok {
				if oldAt, _ := fields(&out[i]); when.earlier(*at, *oldAt) {
					out[i] = e
				}
				continue
			}
			index[k] = len(out)
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := fields(&out[i])
		b, _ := fields(&out[j])
		return when.earlier(*a, *b)
	})
	return out
}

// setHeadFacts fills what the report says of where the work stands: the
// head's plan title, goal, checklist and open items.
func (r *Report) setHeadFacts(head *cpState) {
	cp := head.ref.Checkpoint
	if head.plan != nil {
		r.Title, r.Goal = safetext.Line(head.plan.Title), safetext.Line(head.plan.Goal)
		r.Checklist = head.plan.Steps
	}
	if r.Goal == "" && cp.Task != nil {
		r.Goal = safetext.Line(cp.Task.Goal)
	}
	r.Open = cp.OpenItems
}

// touchedBranch reports whether a session worked on branch: one of its
// checkpoints recorded it (meta.branch). A session whose checkpoints
// record no branch at all (taken outside git, on a detached HEAD, or by an
// older ctxgit) cannot be told apart and is kept; so is every session
// when HEAD names no branch.
func touchedBranch(r *Report, branch string) bool {
	if branch == "" {
		return true
	}
	recorded := false
	for _, c := range r.Checkpoints {
		if c.Branch == branch {
			return true
		}
		recorded = recorded || c.Branch != ""
	}
	return !recorded
}

// reportAllSessions merges the reports of every session of the workspace
// whose newest checkpoint is not before since (zero: all) into one, in
// time order: rows from all sessions by time, the plan and state of the
// newest checkpoint, each decision and failure once, named by the earliest
// checkpoint that shows it.
func reportAllSessions(w *workspace.Workspace, o ReportOptions, since time.Time) (*Report, error) {
	sessions, err := w.Sessions()
	if err != nil {
		return nil, err
	}
	if len(sessions) == 0 {
		return nil, spec.NotFound("the workspace has no checkpoints")
	}
	branch := ""
	if w.Repo != nil {
		branch = vcs.HeadBranch(w.Repo.GitDir)
	}
	var reps []*Report
	for _, s := range sessions {
		r, err := reportSession(w, ReportOptions{Session: s.Name})
		if err != nil {
			return nil, err
		}
		if n := len(r.Checkpoints); n > 0 && r.Checkpoints[n-1].CreatedAt.Before(since) {
			continue
		}
		if !touchedBranch(r, branch) {
			continue
		}
		reps = append(reps, r)
	}
	if len(reps) == 0 {
		return nil, spec.NotFound("no session has a checkpoint since the branch began (%s)", stamp(since))
	}
	if len(reps) == 1 {
		return reps[0], nil
	}
	first := func(r *Report) time.Time { return r.Checkpoints[0].CreatedAt }
	last := func(r *Report) time.Time { return r.Checkpoints[len(r.Checkpoints)-1].CreatedAt }
	sort.SliceStable(reps, func(i, j int) bool {
		if !first(reps[i]).Equal(first(reps[j])) {
			return first(reps[i]).Before(first(reps[j]))
		}
		return reps[i].Session < reps[j].Session
	})
	newest := reps[0]
	for _, r := range reps[1:] {
		if !last(r).Before(last(newest)) {
			newest = r
		}
	}
	out := &Report{Session: newest.Session, Base: reps[0].Base, Head: newest.Head,
		Title: newest.Title, Goal: newest.Goal, Checklist: newest.Checklist, Open: newest.Open}
	when := sessionTimes{}
	for _, r := range reps {
		out.Sessions = append(out.Sessions, r.Session)
		for _, c := range r.Checkpoints {
			when[sessionCheckpoint(r.Session, c.CheckpointID)] = c.CreatedAt
			out.Checkpoints = append(out.Checkpoints, c)
		}
		out.addProblems(r.Problems)
	}
	sort.SliceStable(out.Checkpoints, func(i, j int) bool {
		a, b := out.Checkpoints[i], out.Checkpoints[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		return a.CheckpointID < b.CheckpointID
	})
	// Steps, in the order of their checkpoints.
	for _, r := range reps {
		for _, s := range r.Steps {
			out.Steps = append(out.Steps, ReportStep{sessionCheckpoint(r.Session, s.At), s.StepChange})
		}
	}
	sort.SliceStable(out.Steps, func(i, j int) bool { return when.earlier(out.Steps[i].At, out.Steps[j].At) })
	// Decisions and failures are the workspace's, shared by its sessions:
	// each once, from the earliest checkpoint that shows it.
	firstAt := sessionCheckpoint(reps[0].Session, reps[0].Base.Checkpoint.Meta.CheckpointID)
	out.Decisions = mergeFirstShown(reps, when, firstAt, func(r *Report) []ReportDecision { return r.Decisions },
		func(d *ReportDecision) (at, change *string) { return &d.At, &d.Change },
		func(d ReportDecision) string { return decisionKey(d.Decision) })
	out.Failures = mergeFirstShown(reps, when, firstAt, func(r *Report) []ReportFailure { return r.Failures },
		func(f *ReportFailure) (at, change *string) { return &f.At, &f.Change },
		func(f ReportFailure) string { return failureKey(f.FailureEntry) })

	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	if out.Files, err = reportFiles(w, out.Base.Commit, out.Head); err != nil {
		return nil, err
	}
	from, err := readCPState(w, store, out.Base)
	if err != nil {
		return nil, err
	}
	to, err := readCPState(w, store, out.Head)
	if err != nil {
		return nil, err
	}
	d := out.setRangeChanges(from, to)
	// A failure one session saw open is resolved if the newest
	// checkpoint of all says so.
	out.Failures = resolvedAsAt(out.Failures, to)
	// Open items are compared from the first checkpoint of all to the
	// newest: an item closed in a session's first checkpoint shows too.
	// Each is named by the earliest checkpoint of any session that shows
	// the change, else the head.
	firstShown := map[string]string{}
	for _, r := range reps {
		for _, o := range r.OpenItems {
			k, a := o.Change+"\x00"+fold(o.Text), sessionCheckpoint(r.Session, o.At)
			if cur, ok := firstShown[k]; !ok || when.earlier(a, cur) {
				firstShown[k] = a
			}
		}
	}
	for _, o := range d.OpenItems {
		a, ok := firstShown[o.Change+"\x00"+fold(o.Text)]
		if !ok {
			a = resolvedName(out.Head)
		}
		out.OpenItems = append(out.OpenItems, ReportOpenItem{a, o})
	}
	return out, nil
}

// branchStart is when the branch being reported began: the committer time
// of the merge base of HEAD and ref.
func branchStart(w *workspace.Workspace, ref string) (time.Time, error) {
	store, mb, err := mergeBaseWith(w, ref)
	if err != nil {
		return time.Time{}, err
	}
	c, err := vcs.ReadCommit(store, mb)
	if err != nil {
		return time.Time{}, err
	}
	return c.Committer.When, nil
}

// mergeBaseWith finds the merge base of the repository's HEAD and ref.
func mergeBaseWith(w *workspace.Workspace, ref string) (vcs.Store, vcs.Hash, error) {
	if w.Repo == nil {
		return nil, vcs.ZeroHash, spec.Usage("--base %s: the workspace is not in a git repository", ref)
	}
	store, err := w.ReadStore()
	if err != nil {
		return nil, vcs.ZeroHash, err
	}
	if store == nil {
		return nil, vcs.ZeroHash, spec.NotFound("the workspace has no checkpoints")
	}
	other, err := resolveBase(w, store, ref)
	if err != nil {
		return nil, vcs.ZeroHash, err
	}
	head, err := vcs.ReadHEAD(w.Repo.GitDir)
	if err != nil || head.IsZero() {
		return nil, vcs.ZeroHash, spec.NotFound("--base %s: the repository's HEAD has no commit", ref)
	}
	mb, err := mergeBase(store, head, other)
	if err != nil {
		return nil, vcs.ZeroHash, err
	}
	if mb.IsZero() {
		return nil, vcs.ZeroHash, spec.NotFound("--base %s: it has no history in common with HEAD", ref)
	}
	return store, mb, nil
}

// filesAgainstBase counts a report's files as the pull request from the
// repository's HEAD into ref shows them: the commits from the merge base
// of HEAD and ref to HEAD. The working tree's changes against HEAD, as
// git status shows them, are listed apart (uncommittedFiles), and the
// branch's commits are listed with the checkpoints their trailers name
// (SPEC §7.6). ctxgit's own files are left out, and renames are found as
// git finds them.
func filesAgainstBase(w *workspace.Workspace, r *Report, ref string) error {
	store, mb, err := mergeBaseWith(w, ref)
	if err != nil {
		return err
	}
	head, err := vcs.ReadHEAD(w.Repo.GitDir)
	if err != nil {
		return err
	}
	baseTree, err := workspaceTree(w, store, mb)
	if err != nil {
		return err
	}
	headTree, err := workspaceTree(w, store, head)
	if err != nil {
		return err
	}
	changes, err := vcs.DiffTrees(store, baseTree, headTree)
	if err != nil {
		return err
	}
	if r.Files, err = countReportFiles(w, store, changes, r.Head.Checkpoint); err != nil {
		return err
	}
	if r.Uncommitted, err = uncommittedFiles(w, store, headTree, r.Head.Session); err != nil {
		return err
	}
	// ctxgit's own files are not the pull request's, committed or not.
	own := ownPaths(w, r.Head.Checkpoint)
	r.Uncommitted = slices.DeleteFunc(r.Uncommitted, func(f FileDiff) bool { return own(f.Path) || own(f.From) })
	if r.Commits, err = branchCommits(w, store, head, mb); err != nil {
		return err
	}
	r.FilesBase = &ReportBase{Ref: ref, Commit: mb.String(), Head: head.String()}
	return nil
}

// workspaceTree is the tree of commit id that a checkpoint's snapshot
// compares with: the whole tree, or the workspace's directory of it when
// the workspace is a directory of the repository (zero when absent).
func workspaceTree(w *workspace.Workspace, store vcs.Store, id vcs.Hash) (vcs.Hash, error) {
	c, err := vcs.ReadCommit(store, id)
	if err != nil {
		return vcs.ZeroHash, err
	}
	rel, err := filepath.Rel(w.Repo.WorkTree, w.Root)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return c.Tree, nil
	}
	e, err := vcs.Lookup(store, c.Tree, filepath.ToSlash(rel))
	if err != nil || !e.IsDir() {
		return vcs.ZeroHash, nil
	}
	return e.ID, nil
}

// ReportCommit is a commit of the branch and the checkpoint it links to.
type ReportCommit struct {
	Commit  string    `json:"commit"`
	Subject string    `json:"subject"`
	When    time.Time `json:"when"`
	// Link is the commit's last Ctxgit-Checkpoint trailer; nil without.
	Link *spec.CheckpointLink `json:"link"`
	// Session and Title name the linked session, when it is here.
	Session string `json:"session,omitempty"`
	Title   string `json:"title,omitempty"`
}

// maxBranchCommits bounds the commits a report lists.
const maxBranchCommits = 1000

// branchCommits are the commits of head that base does not have, as `git
// rev-list base..head` finds them, oldest first.
func branchCommits(w *workspace.Workspace, store vcs.Store, head, base vcs.Hash) ([]ReportCommit, error) {
	ofBase := map[vcs.Hash]bool{}
	if err := walkAncestors(store, base, func(id vcs.Hash) bool {
		ofBase[id] = true
		return true
	}); err != nil {
		return nil, err
	}
	var out []ReportCommit
	titles := map[spec.CheckpointLink][2]string{}
	err := walkAncestors(store, head, func(id vcs.Hash) bool {
		if ofBase[id] || len(out) >= maxBranchCommits {
			return false
		}
		c, err := vcs.ReadCommit(store, id)
		if err != nil {
			return false
		}
		subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
		rc := ReportCommit{Commit: id.String(), Subject: subject, When: c.Committer.When}
		if links := spec.ParseTrailers(c.Message); len(links) > 0 {
			link := links[len(links)-1]
			rc.Link = &link
			named, ok := titles[link]
			if !ok {
				if cp, err := linkedCheckpoint(w, link); err == nil {
					named = [2]string{cp.Session, workspace.NamesOf(w, cp).Title}
				}
				titles[link] = named
			}
			rc.Session, rc.Title = named[0], named[1]
		}
		out = append(out, rc)
		return true
	})
	if err != nil {
		return nil, err
	}
	// Oldest first: the walk met children before their parents, so its
	// reverse orders commits of one time (a rebase, a script) as git
	// log --reverse does.
	slices.Reverse(out)
	slices.SortStableFunc(out, func(a, b ReportCommit) int { return a.When.Compare(b.When) })
	return out, nil
}

// linkedCheckpoint resolves the checkpoint a link names.
// A link names its session by a prefix of the key: a local session first,
// else a fetched one (a teammate's, brought by ctxgit fetch).
func linkedCheckpoint(w *workspace.Workspace, link spec.CheckpointLink) (*workspace.Resolved, error) {
	choice, err := workspace.PickSession(w, link.Session, true, true)
	if err != nil {
		return nil, err
	}
	if !w.HasCheckpoints(choice.Session) {
		fetched, err := w.RemoteSessions()
		if err != nil {
			return nil, err
		}
		var hits []string
		for _, f := range fetched {
			if strings.HasPrefix(f.Key, link.Session) {
				hits = append(hits, f.Name())
			}
		}
		if len(hits) == 1 {
			return w.ResolveRead(link.CheckpointID, hits[0])
		}
	}
	return w.ResolveRead(link.CheckpointID, choice.Session)
}

// reportFiles are the files changed from one checkpoint to another, with
// line counts, ctxgit's own files left out: a reviewer reads the work,
// not the state files (their changes are the report's other sections).
func reportFiles(w *workspace.Workspace, from vcs.Hash, to *workspace.Resolved) ([]FileDiff, error) {
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	changes, err := w.Changes(from, to.Commit)
	if err != nil {
		return nil, err
	}
	return countReportFiles(w, store, changes, to.Checkpoint)
}

// countReportFiles leaves ctxgit's own files out of changes, finds renames
// as git does, and counts lines.
func countReportFiles(w *workspace.Workspace, store vcs.Store, changes []vcs.Change, head *spec.Checkpoint) ([]FileDiff, error) {
	own := ownPaths(w, head)
	kept := changes[:0]
	for _, c := range changes {
		if !own(c.Path) {
			kept = append(kept, c)
		}
	}
	changes = detectRenames(store, kept)
	files := make([]FileDiff, 0, len(changes))
	for _, c := range changes {
		f := FileDiff{Path: c.Path, Status: c.Status, From: c.From, src: &patchSource{store, c}}
		if err := countLines(store, c, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// ownPaths reports ctxgit's own files: everything under .ctxgit/, the
// state files the config names (and the plan the checkpoint recorded),
// and the files a checkpoint writes.
func ownPaths(w *workspace.Workspace, cp *spec.Checkpoint) func(string) bool {
	p := w.Config.Paths
	files := map[string]bool{}
	for _, f := range []string{p.Plan, p.FailureLog, p.FailureLogFallback, p.Decisions, p.TaskState, p.SelfModel, p.EnvModel, cp.Plan.Source} {
		if f != "" {
			files[filepath.ToSlash(filepath.Clean(f))] = true
		}
	}
	summaries := strings.TrimSuffix(filepath.ToSlash(p.Summaries), "/")
	return func(path string) bool {
		return files[path] || workspace.IsCheckpointOutput(path) || strings.HasPrefix(path, ".ctxgit/") ||
			(summaries != "" && strings.HasPrefix(path, summaries+"/"))
	}
}

// tagObject is git's type number for an annotated tag.
const tagObject vcs.ObjectType = 4

// mergeBase is git's merge base of a and b: a common ancestor that no
// other common ancestor descends from (the first in commit order when
// there are several); zero when they share no history.
func mergeBase(s vcs.Store, a, b vcs.Hash) (vcs.Hash, error) {
	ofA := map[vcs.Hash]bool{}
	if err := walkAncestors(s, a, func(id vcs.Hash) bool {
		ofA[id] = true
		return true
	}); err != nil {
		return vcs.ZeroHash, err
	}
	var common []vcs.Hash
	if err := walkAncestors(s, b, func(id vcs.Hash) bool {
		if ofA[id] {
			common = append(common, id) // its ancestors are common too, and older
			return false
		}
		return true
	}); err != nil {
		return vcs.ZeroHash, err
	}
	for _, c := range common {
		best := true
		for _, o := range common {
			if o == c {
				continue
			}
			if anc, err := vcs.IsAncestor(s, c, o); err != nil {
				return vcs.ZeroHash, err
			} else if anc {
				best = false
				break
			}
		}
		if best {
			return c, nil
		}
	}
	return vcs.ZeroHash, nil
}

// walkAncestors visits the commit from and its ancestors breadth-first,
// each once; visit returns whether to go on to a commit's parents.
func walkAncestors(s vcs.Store, from vcs.Hash, visit func(vcs.Hash) bool) error {
	seen := map[vcs.Hash]bool{}
	queue := []vcs.Hash{from}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		if !visit(id) {
			continue
		}
		c, err := vcs.ReadCommit(s, id)
		if err != nil {
			return err
		}
		queue = append(queue, c.Parents...)
	}
	return nil
}

// Rename detection as git does it by default: an added file whose content
// is at least half a deleted one's (git's -M50%) is that file renamed,
// best matches first. Files over renameMaxSize or binary are matched only
// when identical (vcs.DiffTrees already did), and the search is skipped
// past renameMaxPairs pairs, as git skips it past diff.renameLimit.
const (
	renameMinScore = 50
	renameMaxSize  = 1 << 20
	renameMaxPairs = 250000
)

func detectRenames(s vcs.Store, changes []vcs.Change) []vcs.Change {
	var dels, adds []int
	for i, c := range changes {
		switch {
		case c.Status == vcs.Deleted && c.OldMode != vcs.ModeGitlink:
			dels = append(dels, i)
		case c.Status == vcs.Added && c.NewMode != vcs.ModeGitlink:
			adds = append(adds, i)
		}
	}
	if len(dels) == 0 || len(adds) == 0 || len(dels)*len(adds) > renameMaxPairs {
		return changes
	}
	lines := func(id vcs.Hash) (map[string]int, int) {
		data, err := vcs.ReadBlob(s, id)
		if err != nil || len(data) > renameMaxSize || bytes.IndexByte(data, 0) >= 0 {
			return nil, 0
		}
		m := map[string]int{}
		for len(data) > 0 {
			n := bytes.IndexByte(data, '\n') + 1
			if n == 0 || n > 64 {
				n = min(len(data), 64) // git hashes in chunks of at most 64 bytes
			}
			m[string(data[:n])]++
			data = data[n:]
		}
		return m, 0
	}
	type sig struct {
		m    map[string]int
		size int
	}
	sigOf := func(id vcs.Hash) sig {
		m, _ := lines(id)
		size := 0
		for l, n := range m {
			size += len(l) * n
		}
		return sig{m, size}
	}
	delSig := make([]sig, len(dels))
	for i, d := range dels {
		delSig[i] = sigOf(changes[d].OldID)
	}
	type pair struct{ score, del, add int }
	var pairs []pair
	for j, a := range adds {
		as := sigOf(changes[a].NewID)
		if as.m == nil {
			continue
		}
		for i := range dels {
			ds := delSig[i]
			if ds.m == nil || max(ds.size, as.size) == 0 {
				continue
			}
			if min(ds.size, as.size)*100 < renameMinScore*max(ds.size, as.size) {
				continue // too different in size to reach the score
			}
			common := 0
			for l, n := range ds.m {
				common += len(l) * min(n, as.m[l])
			}
			if score := common * 100 / max(ds.size, as.size); score >= renameMinScore {
				pairs = append(pairs, pair{score, i, j})
			}
		}
	}
	sort.SliceStable(pairs, func(x, y int) bool {
		if pairs[x].score != pairs[y].score {
			return pairs[x].score > pairs[y].score
		}
		if pairs[x].add != pairs[y].add {
			return changes[adds[pairs[x].add]].Path < changes[adds[pairs[y].add]].Path
		}
		return changes[dels[pairs[x].del]].Path < changes[dels[pairs[y].del]].Path
	})
	usedDel, usedAdd := map[int]bool{}, map[int]bool{}
	drop := map[int]bool{}
	for _, p := range pairs {
		if usedDel[p.del] || usedAdd[p.add] {
			continue
		}
		usedDel[p.del], usedAdd[p.add] = true, true
		d, a := &changes[dels[p.del]], &changes[adds[p.add]]
		a.Status, a.From, a.OldID, a.OldMode = vcs.Renamed, d.Path, d.OldID, d.OldMode
		drop[dels[p.del]] = true
	}
	out := make([]vcs.Change, 0, len(changes))
	for i, c := range changes {
		if !drop[i] {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b vcs.Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}
