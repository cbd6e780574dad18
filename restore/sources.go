package restore

import (
	"errors"
	"sort"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// Source is a checkpoint that `restore PATH…` takes some of the paths
// from, when no checkpoint is named (docs/cli.md#restore).
type Source struct {
	// Name is the checkpoint's full commit id, a name Resolve reads in
	// any session.
	Name string
	// Session and CheckpointID say which checkpoint it is.
	Session, CheckpointID string
	// Paths are the paths as typed that it holds the newest of.
	Paths []string
}

// Sources finds, for each path as typed, the newest checkpoint that
// holds it: the session's own checkpoints first, newest first, then
// every other session's, newest first by commit time. Paths that share a
// checkpoint are grouped; the groups come in the order their first path
// was typed. A path no checkpoint holds is a usage error naming it.
func Sources(w *workspace.Workspace, session string, paths []string) ([]Source, error) {
	if err := spec.ValidateSessionKey(session); err != nil {
		return nil, err
	}
	r := &ws{w}
	rels := make([]string, len(paths))
	for i, p := range paths {
		scope, err := r.restoreScope([]string{p})
		if err != nil {
			return nil, err
		}
		if len(scope) > 0 {
			rels[i] = scope[0] // "" is the whole snapshot: every checkpoint holds it
		}
	}
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	found := make([]*workspace.Entry, len(paths))
	left := len(paths)
	check := func(e workspace.Entry) error {
		c, err := vcs.ReadCommit(store, e.Commit)
		if err != nil {
			return err
		}
		for i, rel := range rels {
			if found[i] != nil {
				continue
			}
			if rel != "" {
				if _, err := vcs.Lookup(store, c.Tree, rel); errors.Is(err, vcs.ErrObjectNotFound) {
					continue
				} else if err != nil {
					return err
				}
			}
			found[i] = &e
			left--
		}
		return nil
	}
	if store != nil {
		own, err := w.Log(session, 0)
		if err != nil && !errors.Is(err, spec.ErrNotFound) {
			return nil, err
		}
		for _, e := range own {
			if left == 0 {
				break
			}
			if err := check(e); err != nil {
				return nil, err
			}
		}
		if left > 0 {
			others, err := otherCheckpoints(w, session)
			if err != nil {
				return nil, err
			}
			for _, e := range others {
				if left == 0 {
					break
				}
				if err := check(e); err != nil {
					return nil, err
				}
			}
		}
	}
	var missing []string
	for i, f := range found {
		if f == nil {
			missing = append(missing, paths[i])
		}
	}
	if len(missing) > 0 {
		return nil, spec.Usage("no checkpoint holds %s (ctxgit log lists the checkpoints; ctxgit restore CHECKPOINT -- PATH names one)", strings.Join(missing, ", "))
	}
	var out []Source
	at := map[vcs.Hash]int{}
	for i, f := range found {
		n, ok := at[f.Commit]
		if !ok {
			n = len(out)
			at[f.Commit] = n
			out = append(out, Source{Name: f.Commit.String(), Session: f.Session, CheckpointID: f.CheckpointID})
		}
		out[n].Paths = append(out[n].Paths, paths[i])
	}
	return out, nil
}

// otherCheckpoints lists the checkpoints of every session but session,
// newest first by commit time (ties by session, then chain order).
func otherCheckpoints(w *workspace.Workspace, session string) ([]workspace.Entry, error) {
	sessions, err := w.Sessions()
	if err != nil {
		return nil, err
	}
	var all []workspace.Entry
	for _, s := range sessions {
		if s.Name == session {
			continue
		}
		log, err := w.Log(s.Name, 0)
		if err != nil {
			return nil, err
		}
		all = append(all, log...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].When.After(all[j].When) })
	return all, nil
}
