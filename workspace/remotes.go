package workspace

import (
	"errors"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// Fetched sessions as the core reads them (docs/cli.md#fetch): the refs the
// sharing package's fetch writes under refs/ctxgit/remotes/, named
// REMOTE/KEY by read commands, and the environment `ctxgit git` runs git
// with (docs/cli.md#git). Push and fetch themselves live in package sharing.

// RemotesRefPrefix holds the refs fetched from remotes.
const RemotesRefPrefix = spec.RefPrefix + "remotes/"

// SessionsPath is this workspace's session prefix below refs/ctxgit/:
// "sessions/" or "ws/<ns>/sessions/".
func (w *Workspace) SessionsPath() string {
	return strings.TrimPrefix(spec.SessionRefsPrefix(w.Namespace), spec.RefPrefix)
}

// validateRemoteName: a remote's namespace is one ref path component,
// held to the rules of a typed session key.
func validateRemoteName(name string) error {
	if name == "" {
		return errors.New("the name is empty")
	}
	if err := spec.ValidateSessionKey(name); err != nil {
		// The rule without "session key NAME: ", which the caller names.
		msg := err.Error()
		if _, rest, ok := strings.Cut(msg, `": `); ok {
			msg = rest
		}
		return errors.New(msg)
	}
	return nil
}

// RemoteSession is a session fetched from a remote.
type RemoteSession struct {
	Remote, Key string
	ID          vcs.Hash
}

// Name is how read commands name it: REMOTE/KEY.
func (s RemoteSession) Name() string { return s.Remote + "/" + s.Key }

// RemoteSessions lists the fetched sessions of this workspace's namespace,
// by remote, then key.
func (w *Workspace) RemoteSessions() ([]RemoteSession, error) {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		return nil, err
	}
	refs, err := store.ListRefs(RemotesRefPrefix)
	if err != nil {
		return nil, err
	}
	prefix := w.SessionsPath()
	var out []RemoteSession
	for _, r := range refs {
		remote, rest, ok := strings.Cut(strings.TrimPrefix(r.Name, RemotesRefPrefix), "/")
		if !ok {
			continue
		}
		key, ok := strings.CutPrefix(rest, prefix)
		if !ok || strings.Contains(key, "/") || spec.ValidateSessionKey(key) != nil {
			continue
		}
		out = append(out, RemoteSession{Remote: remote, Key: key, ID: r.ID})
	}
	return out, nil
}

// ValidateReadSession checks a session name given to a command that only
// reads history: a key (SPEC §6.1), or REMOTE/KEY for a fetched session.
func ValidateReadSession(name string) error {
	remote, key, ok := strings.Cut(name, "/")
	if !ok || remote == "" || strings.HasPrefix(name, ".") {
		// Not REMOTE/KEY in form: say what is wrong with it as a key.
		return spec.ValidateSessionKey(name)
	}
	if err := validateRemoteName(remote); err != nil {
		return spec.Usage("session %q: the remote's name: %v", name, err)
	}
	return spec.ValidateSessionKey(key)
}

// sessionRefFor is the ref of a session named KEY or REMOTE/KEY.
func (w *Workspace) sessionRefFor(name string) string {
	if remote, key, ok := strings.Cut(name, "/"); ok {
		return RemotesRefPrefix + remote + "/" + w.SessionsPath() + key
	}
	return w.SessionRef(name)
}

// GitEnv is the environment `ctxgit git` runs git with (docs/cli.md#git):
// GIT_DIR (and GIT_WORK_TREE) of the enclosing repository, or GIT_DIR of
// the private store, which is created if it does not exist yet so that a
// remote can be added to it.
func (w *Workspace) GitEnv() (map[string]string, error) {
	if w.Repo != nil {
		return map[string]string{"GIT_DIR": w.Repo.GitDir, "GIT_WORK_TREE": w.Repo.WorkTree}, nil
	}
	if _, err := w.Store(); err != nil {
		return nil, err
	}
	return map[string]string{"GIT_DIR": w.Path(spec.PrivateStoreDir)}, nil
}
