// Package sharing is `ctxgit push` and `ctxgit fetch` (docs/cli.md#push,
// docs/cli.md#fetch): it sends a workspace's session refs to a remote and
// copies a remote's under refs/ctxgit/remotes/. It works over vcs.Store (fetch
// over vcs.FetchStore: git fetch needs a git directory to write into) and the
// workspace core's exported calls; workspace never imports it
// (ARCHITECTURE.md).
package sharing

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// Sharing checkpoints (docs/cli.md#push, docs/cli.md#fetch): `ctxgit push`
// sends this workspace's session refs to the same names on a remote; `ctxgit
// fetch` copies a remote's refs/ctxgit/ refs under
// refs/ctxgit/remotes/<remote>/, never over local ones. Neither takes the
// workspace lock: they write objects and refs under refs/ctxgit/remotes/ only,
// each ref by compare-and-swap, so a checkpoint taken meanwhile is never
// blocked for the length of a network transfer and never lost.

// DefaultRemote is the remote push and fetch use when none is given.
const DefaultRemote = "origin"

// Options are push's and fetch's.
type Options struct {
	// Remote is a remote's name in the git config, or a URL or path;
	// "" means origin.
	Remote string
	// As names the remote's namespace under refs/ctxgit/remotes/ when
	// Remote is a URL or path (default: a configured remote with that
	// URL, else a name derived from it).
	As string
	// Force lets push replace a remote chain that is not an ancestor of
	// the local one.
	Force bool
	// Sessions are the sessions push sends (keys or unique prefixes);
	// none means the current one, as every command picks it (SPEC §6.3).
	// All sends every session.
	Sessions []string
	All      bool
	// Prune lets fetch drop fetched refs the remote no longer has.
	Prune bool
	// FirstPush, when not nil, is told what a first push to a remote
	// will send, before anything is sent (FirstPushNotice).
	FirstPush func(FirstPushNotice)
	// Messages receives the remote's own messages (hooks).
	Messages io.Writer
	// Timeout bounds each git run against a network remote; 0 reads
	// ctxgit.remoteTimeout from the git config, else the default.
	Timeout time.Duration
	// Ctx, when not nil, interrupts the transfer (Ctrl-C): git is
	// stopped, a local copy is discarded, and no ref is moved after it is
	// done.
	Ctx context.Context
}

// Ref statuses of a push or fetch.
const (
	RefNew         = "new"
	RefFastForward = "fast-forward"
	RefForced      = "forced"
	RefUpToDate    = "up to date"
	RefRejected    = "rejected"
	RefDeleted     = "deleted"
)

// RefChange is what happened to one ref.
type RefChange struct {
	// Session is how read commands name the session: KEY for push,
	// REMOTE/KEY for fetch; the ref name below refs/ctxgit/ for refs of
	// another workspace's namespace.
	Session string
	// Ref is the name on the remote; Local the name here (the session
	// ref for push, the fetched ref for fetch).
	Ref, Local   string
	Old, New     vcs.Hash
	CheckpointID string // of New, from its trailer
	Status       string
	Reason       string // why it was rejected
}

// Result reports a push or fetch.
type Result struct {
	Remote   string // the namespace name under refs/ctxgit/remotes/
	URL      string // without any password
	Objects  int    // objects sent or received
	Refs     []RefChange
	Warnings []string
}

// Rejected counts the refs that were not updated.
func (r *Result) Rejected() int {
	n := 0
	for _, c := range r.Refs {
		if c.Status == RefRejected {
			n++
		}
	}
	return n
}

// gitConfigPath is the config file that names the workspace's remotes:
// the repository's, or the private store's.
func gitConfigPath(w *workspace.Workspace) string {
	if w.Repo != nil {
		return filepath.Join(w.Repo.CommonDir, "config")
	}
	return filepath.Join(w.Path(spec.PrivateStoreDir), "config")
}

// remoteBase is what a relative path in a remote's configured URL is
// relative to: the working tree's top level, or the workspace root.
func remoteBase(w *workspace.Workspace) string {
	if w.Repo != nil && w.Repo.WorkTree != "" {
		return w.Repo.WorkTree
	}
	return w.Root
}

// resolvedRemote is the remote a command names.
type resolvedRemote struct {
	ns      string // the namespace under refs/ctxgit/remotes/
	ep      *vcs.Endpoint
	name    string // the configured remote's name; "" for a URL or path
	pushURL string // its pushurl, if any
	cfgPath string // the git config that names remotes
}

// resolveRemote finds the remote a command names: a configured remote,
// else a URL or path. It returns the namespace name and the endpoint.
func resolveRemote(w *workspace.Workspace, arg, as string, push bool) (*resolvedRemote, error) {
	ns, ep, name, pushURL, err := resolveRemoteParts(w, arg, as, push)
	if err != nil {
		return nil, err
	}
	return &resolvedRemote{ns: ns, ep: ep, name: name, pushURL: pushURL, cfgPath: gitConfigPath(w)}, nil
}

func resolveRemoteParts(w *workspace.Workspace, arg, as string, push bool) (string, *vcs.Endpoint, string, string, error) {
	if err := spec.CheckArg("the remote", arg); err != nil {
		return "", nil, "", "", err
	}
	if as != "" {
		if err := workspace.ValidateRemoteName(as); err != nil {
			return "", nil, "", "", spec.Usage("--as %q: %v", as, err)
		}
	}
	cfgPath := gitConfigPath(w)
	remotes, err := vcs.ReadRemotes(cfgPath)
	if err != nil {
		return "", nil, "", "", spec.Invalid("%s", w.Rel(err.Error()))
	}
	name := arg
	if name == "" {
		name = DefaultRemote
	}
	for _, r := range remotes {
		if r.Name != name {
			continue
		}
		url := r.URL
		if push && r.PushURL != "" {
			url = r.PushURL
		}
		ep, err := vcs.ParseEndpoint(url, remoteBase(w))
		if err != nil {
			return "", nil, "", "", remoteErr(fmt.Errorf("remote %s in %s: %w", name, w.Rel(cfgPath), err))
		}
		ns := name
		if as != "" {
			ns = as
		}
		if err := workspace.ValidateRemoteName(ns); err != nil {
			return "", nil, "", "", spec.Usage("remote %q cannot name refs under %s: %v; give --as NAME", name, workspace.RemotesRefPrefix, err)
		}
		return ns, ep, r.Name, r.PushURL, nil
	}
	if !looksLikeURL(arg, w.Env.Cwd) {
		where := w.Rel(cfgPath)
		if arg == "" {
			return "", nil, "", "", spec.NotFound("no remote origin in %s: give a URL or path, or add one with `ctxgit git -- remote add origin URL`", where)
		}
		return "", nil, "", "", spec.NotFound("no remote named %q in %s, and it is not a URL or a path", arg, where)
	}
	ep, err := vcs.ParseEndpoint(arg, w.Env.Cwd)
	if err != nil {
		return "", nil, "", "", remoteErr(err)
	}
	ns := as
	if ns == "" {
		for _, r := range remotes {
			if r.URL == arg || r.PushURL == arg {
				ns = r.Name
			}
		}
		if workspace.ValidateRemoteName(ns) != nil {
			ns = derivedRemoteName(arg)
		}
	}
	return ns, ep, "", "", nil
}

// looksLikeURL tells a URL or path from a misspelt remote name: a scheme,
// a slash, a colon (scp-like), a leading ~ or dot, or an existing path.
func looksLikeURL(arg, cwd string) bool {
	if arg == "" {
		return false
	}
	if strings.ContainsAny(arg, "/:\\") || strings.HasPrefix(arg, "~") || strings.HasPrefix(arg, ".") {
		return true
	}
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	_, err := os.Stat(p)
	return err == nil
}

// derivedRemoteName names the namespace of a remote given by URL: its
// last path element without .git, and a hash of the whole URL so two
// URLs never share it.
func derivedRemoteName(url string) string {
	base := strings.TrimSuffix(path.Base(strings.TrimRight(filepath.ToSlash(url), "/")), ".git")
	if i := strings.LastIndexByte(base, ':'); i >= 0 {
		base = base[i+1:]
	}
	key := spec.SanitizeSessionKey(base)
	if i := strings.LastIndexByte(key, '-'); i > 0 && key != base {
		key = key[:i] // drop the sanitizer's hash; ours covers the URL
	}
	sum := sha1.Sum([]byte(url))
	return key + "-" + hex.EncodeToString(sum[:])[:10]
}

// remoteErr gives a remote's failure its exit code (docs/cli.md#push).
func remoteErr(err error) error {
	switch {
	case errors.Is(err, vcs.ErrNoRepository):
		return spec.NotFound("%w", err)
	case errors.Is(err, vcs.ErrUnsupportedRepo):
		return spec.Unsupported("%s", strings.TrimSuffix(err.Error(), ": "+vcs.ErrUnsupportedRepo.Error()))
	case errors.Is(err, vcs.ErrUnsupportedRemote), errors.Is(err, vcs.ErrNoGit):
		return spec.Unsupported("%w", err)
	case errors.Is(err, vcs.ErrRefConflict):
		return spec.Conflict("%w", err)
	}
	return err
}

// connect opens the remote: a local one in process, a network one through
// git run on the checkpoint store (docs/design.md, "Transports").
func connect(w *workspace.Workspace, rr *resolvedRemote, push bool, opts Options) (vcs.Remote, error) {
	timeout := opts.Timeout
	if timeout == 0 && rr.ep.IsNetwork() {
		t, err := vcs.ReadRemoteTimeout(rr.cfgPath)
		if err != nil {
			return nil, spec.Invalid("%s", w.Rel(err.Error()))
		}
		timeout = t
	}
	r, err := vcs.Connect(rr.ep, vcs.ConnectOptions{Push: push, Messages: opts.Messages, GitDir: storeGitDir(w),
		Name: rr.name, PushURL: rr.pushURL, Timeout: timeout, Ctx: opts.Ctx})
	if err != nil {
		return nil, remoteErr(err)
	}
	return r, nil
}

// storeGitDir is the checkpoint store's git directory (which a private
// store may not have yet).
func storeGitDir(w *workspace.Workspace) string {
	if w.Repo != nil {
		return w.Repo.CommonDir
	}
	return w.Path(spec.PrivateStoreDir)
}

// trackingName is where fetch keeps a remote's ref.
func trackingName(remote, ref string) string {
	return workspace.RemotesRefPrefix + remote + "/" + strings.TrimPrefix(ref, spec.RefPrefix)
}

// Push sends the workspace's sessions to a remote (docs/cli.md#push): each
// session ref to the same name there, as a fast-forward unless Force.
// Refs that were refused are in the result with their reason, and the
// error is a conflict (exit 5).
func Push(w *workspace.Workspace, opts Options) (*Result, error) {
	for _, n := range opts.Sessions {
		if strings.Contains(n, "/") {
			return nil, spec.Usage("session %q: fetched sessions are never pushed", n)
		}
		if err := spec.ValidateSessionKey(n); err != nil {
			return nil, err
		}
	}
	rr, err := resolveRemote(w, opts.Remote, opts.As, true)
	if err != nil {
		return nil, err
	}
	name, ep := rr.ns, rr.ep
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	var sessions []vcs.Ref
	if store != nil {
		if sessions, err = w.Sessions(); err != nil {
			return nil, err
		}
	}
	if len(sessions) == 0 {
		return nil, spec.NotFound("nothing to push: this workspace has no checkpoints")
	}
	all := len(sessions)
	if sessions, err = pushed(w, sessions, opts); err != nil {
		return nil, err
	}
	tracked, err := store.ListRefs(workspace.RemotesRefPrefix + name + "/")
	if err != nil {
		return nil, err
	}
	if len(tracked) == 0 && opts.FirstPush != nil {
		// Told before the remote is even reached: a push that fails
		// part way has still said what it was sending.
		opts.FirstPush(firstPushNotice(w, name, ep.String(), sessions, all))
	}
	r, err := connect(w, rr, true, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &Result{Remote: name, URL: ep.String()}
	remote := map[string]vcs.Hash{}
	for _, ref := range r.Refs() {
		remote[ref.Name] = ref.ID
	}
	var updates []vcs.RefUpdate
	for _, s := range sessions {
		ref := w.SessionRef(s.Name)
		ch := RefChange{Session: s.Name, Ref: ref, Local: ref, Old: remote[ref], New: s.ID, CheckpointID: workspace.CheckpointIDOf(store, s.ID)}
		switch {
		case ch.Old == ch.New:
			ch.Status = RefUpToDate
		case ch.Old.IsZero():
			ch.Status = RefNew
		default:
			have, err := store.HasObject(ch.Old)
			if err != nil {
				return nil, err
			}
			ff := false
			if have {
				if ff, err = vcs.IsAncestor(store, ch.Old, ch.New); err != nil {
					return nil, err
				}
			}
			switch {
			case ff:
				ch.Status = RefFastForward
			case opts.Force:
				ch.Status = RefForced
			case have:
				ch.Status, ch.Reason = RefRejected, "non-fast-forward: the remote's chain has checkpoints this one does not (fetch to compare them, or push --force to replace it)"
			default:
				ch.Status, ch.Reason = RefRejected, "fetch first: the remote has checkpoints this workspace has not fetched (fetch to compare them, or push --force to replace it)"
			}
		}
		if ch.Status != RefUpToDate && ch.Status != RefRejected {
			updates = append(updates, vcs.RefUpdate{Name: ref, Old: ch.Old, New: ch.New})
		}
		res.Refs = append(res.Refs, ch)
	}
	if len(updates) > 0 {
		known, err := vcs.KnownFrom(store, pushHaves(r.Refs()))
		if err != nil {
			return nil, err
		}
		statuses, n, err := r.Push(store, updates, known)
		if err != nil {
			return nil, remoteErr(err)
		}
		res.Objects = n
		got := map[string]string{}
		reported := map[string]bool{}
		for _, st := range statuses {
			got[st.Name], reported[st.Name] = st.Err, true
		}
		for i := range res.Refs {
			ch := &res.Refs[i]
			if ch.Status == RefUpToDate || ch.Status == RefRejected {
				continue
			}
			switch why, ok := got[ch.Ref], reported[ch.Ref]; {
			case !ok:
				ch.Status, ch.Reason = RefRejected, "the remote did not report on it"
			case why != "":
				ch.Status, ch.Reason = RefRejected, "refused by the remote: "+why
			default:
				if err := track(store, trackingName(name, ch.Ref), ch.New); err != nil {
					res.Warnings = append(res.Warnings, err.Error())
				}
			}
		}
	}
	if n := res.Rejected(); n > 0 {
		return res, spec.Conflict("%s rejected by %s: %s", plural(n, "session"), name, firstRejection(res))
	}
	return res, nil
}

// pushed picks the sessions a push sends (docs/cli.md#push): all with
// All, the named ones (by key or unique prefix), else the current one.
func pushed(w *workspace.Workspace, sessions []vcs.Ref, opts Options) ([]vcs.Ref, error) {
	if opts.All {
		return sessions, nil
	}
	names := opts.Sessions
	if len(names) == 0 {
		choice, err := workspace.PickSession(w, spec.DefaultSession, false, true)
		if err != nil {
			return nil, err
		}
		names = []string{choice.Session}
	}
	want := map[string]bool{}
	for _, n := range names {
		choice, err := workspace.PickSession(w, n, true, true)
		if err != nil {
			return nil, err
		}
		want[choice.Session] = true
	}
	var out []vcs.Ref
	for _, s := range sessions {
		if want[s.Name] {
			out = append(out, s)
			delete(want, s.Name)
		}
	}
	for n := range want {
		return nil, spec.NotFound("nothing to push: session %s has no checkpoints (ctxgit log --sessions lists those that have; --all sends every one)", n)
	}
	return out, nil
}

// pushHaves are the remote's refs whose snapshots are left out of a push:
// its ctxgit refs first, then its branches (a checkpoint's files are
// mostly a branch's), at most 64 of them.
func pushHaves(refs []vcs.Ref) []vcs.Hash {
	var out []vcs.Hash
	for _, prefix := range []string{spec.RefPrefix, "refs/heads/"} {
		for _, r := range refs {
			if strings.HasPrefix(r.Name, prefix) && len(out) < 64 {
				out = append(out, r.ID)
			}
		}
	}
	return out
}

func firstRejection(res *Result) string {
	for _, c := range res.Refs {
		if c.Status == RefRejected {
			return c.Ref + ": " + c.Reason
		}
	}
	return ""
}

// track sets a fetched ref, by compare-and-swap against what it held.
func track(store vcs.Store, name string, id vcs.Hash) error {
	old, err := store.ReadRef(name)
	if errors.Is(err, vcs.ErrRefNotFound) {
		old, err = vcs.ZeroHash, nil
	}
	if err != nil {
		return err
	}
	if old == id {
		return nil
	}
	return store.UpdateRef(name, id, old)
}

// Fetch copies a remote's checkpoint refs — every ref under refs/ctxgit/
// except its own refs/ctxgit/remotes/ — and their objects into the
// workspace's store, each under refs/ctxgit/remotes/<remote>/
// (docs/cli.md#fetch). Local session refs are never written.
func Fetch(w *workspace.Workspace, opts Options) (*Result, error) {
	rr, err := resolveRemote(w, opts.Remote, opts.As, false)
	if err != nil {
		return nil, err
	}
	name, ep := rr.ns, rr.ep
	r, err := connect(w, rr, false, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	store, err := w.FetchStore()
	if err != nil {
		return nil, err
	}
	res := &Result{Remote: name, URL: ep.String()}
	var listed []vcs.Ref
	for _, ref := range r.Refs() {
		if strings.HasPrefix(ref.Name, spec.RefPrefix) && !strings.HasPrefix(ref.Name, workspace.RemotesRefPrefix) &&
			vcs.CheckRefName(ref.Name) == nil && vcs.CheckRefName(trackingName(name, ref.Name)) == nil {
			listed = append(listed, ref)
		}
	}
	haves, err := fetchHaves(store, name)
	if err != nil {
		return nil, err
	}
	arrived, n, err := r.Fetch(store, listed)
	if err != nil {
		return nil, remoteErr(err)
	}
	res.Objects = n
	// A fetched ref must name a checkpoint: a ref at a blob, tree or tag
	// would fail every reader of the session (docs/cli.md#fetch). It is refused;
	// the others are fetched.
	var refs []vcs.Ref
	var tips []vcs.Hash
	var refused []RefChange
	for _, ref := range arrived {
		t, _, err := store.ReadObject(ref.ID)
		if err != nil {
			return nil, fmt.Errorf("%s did not send %s (%s): %w", ep, ref.Name, ref.ID.Short(), err)
		}
		if t != vcs.CommitObject {
			refused = append(refused, RefChange{Session: fetchedName(w, name, ref.Name), Ref: ref.Name, Local: trackingName(name, ref.Name),
				New: ref.ID, Status: RefRejected, Reason: fmt.Sprintf("points at a %s, not a checkpoint commit", t)})
			continue
		}
		refs = append(refs, ref)
		tips = append(tips, ref.ID)
	}
	// The history must be whole before a ref points into it: a shallow or
	// broken remote can send commits without their parents or trees, and
	// a ref to them would break every reader and git fsck. The walk stops
	// at what this store's own refs already reach.
	known := map[vcs.Hash]bool{}
	for _, h := range haves {
		known[h] = true
	}
	if err := vcs.WalkReachable(store, tips, known, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil }); err != nil {
		return nil, fmt.Errorf("%s sent an incomplete history (%w); no session was updated", ep, err)
	}
	// The last moment to stop with no tracking ref moved.
	if err := workspace.ContextErr(opts.Ctx); err != nil {
		return nil, err
	}
	var conflicts []string
	fetched := map[string]bool{}
	for _, ref := range refs {
		local := trackingName(name, ref.Name)
		fetched[local] = true
		ch := RefChange{Session: fetchedName(w, name, ref.Name), Ref: ref.Name, Local: local, New: ref.ID, CheckpointID: workspace.CheckpointIDOf(store, ref.ID)}
		old, err := store.ReadRef(local)
		switch {
		case errors.Is(err, vcs.ErrRefNotFound):
			ch.Status = RefNew
		case err != nil:
			return nil, err
		case old == ref.ID:
			ch.Old, ch.Status = old, RefUpToDate
		default:
			ch.Old = old
			ch.Status = RefForced
			if ff, err := vcs.IsAncestor(store, old, ref.ID); err == nil && ff {
				ch.Status = RefFastForward
			}
		}
		if ch.Status != RefUpToDate {
			// Fetched refs follow the remote, forced or not; the swap
			// only guards against another fetch racing this one.
			if err := store.UpdateRef(local, ch.New, ch.Old); err != nil {
				ch.Status, ch.Reason = RefRejected, err.Error()
				conflicts = append(conflicts, local)
			}
		}
		res.Refs = append(res.Refs, ch)
	}
	if opts.Prune {
		mine, err := store.ListRefs(workspace.RemotesRefPrefix + name + "/")
		if err != nil {
			return nil, err
		}
		for _, m := range mine {
			if fetched[m.Name] {
				continue
			}
			ref := spec.RefPrefix + strings.TrimPrefix(m.Name, workspace.RemotesRefPrefix+name+"/")
			ch := RefChange{Session: fetchedName(w, name, ref), Local: m.Name, Ref: ref, Old: m.ID, Status: RefDeleted}
			if err := store.DeleteRef(m.Name, m.ID); err != nil {
				ch.Status, ch.Reason = RefRejected, err.Error()
				conflicts = append(conflicts, m.Name)
			}
			res.Refs = append(res.Refs, ch)
		}
	}
	res.Refs = append(res.Refs, refused...)
	if len(conflicts) > 0 {
		return res, spec.Conflict("%s changed while fetching: %s", plural(len(conflicts), "ref"), strings.Join(conflicts, ", "))
	}
	if len(refused) > 0 {
		return res, fmt.Errorf("%s: %s %s; not fetched", name, refused[0].Ref, refused[0].Reason)
	}
	return res, nil
}

// fetchedName is how a fetched ref is named: REMOTE/KEY for a session of
// this workspace's namespace, else REMOTE/ and the ref below refs/ctxgit/.
func fetchedName(w *workspace.Workspace, remote, ref string) string {
	rest := strings.TrimPrefix(ref, spec.RefPrefix)
	if key, ok := strings.CutPrefix(rest, w.SessionsPath()); ok && !strings.Contains(key, "/") {
		return remote + "/" + key
	}
	return remote + "/" + rest
}

// fetchHaves are the commits a fetch tells the remote this store has:
// the refs fetched from it before, then every other ctxgit ref.
func fetchHaves(store vcs.Store, remote string) ([]vcs.Hash, error) {
	all, err := store.ListRefs(spec.RefPrefix)
	if err != nil {
		return nil, err
	}
	var first, rest []vcs.Hash
	for _, r := range all {
		if ok, err := store.HasObject(r.ID); err != nil || !ok {
			continue // a ref at a missing object has nothing to offer (SPEC §7.5)
		}
		if strings.HasPrefix(r.Name, workspace.RemotesRefPrefix+remote+"/") {
			first = append(first, r.ID)
		} else {
			rest = append(rest, r.ID)
		}
	}
	return append(first, rest...), nil
}

// plural renders a count with its noun, "1 checkpoint" or "2 checkpoints".
func plural(n int, word string) string { return spec.Plural(n, word) }
