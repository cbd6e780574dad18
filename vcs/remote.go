package vcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/ospath"
)

// Errors of remote repositories, matched with errors.Is.
var (
	// ErrUnreachable: the remote could not be reached (no such host, a
	// refused connection, ssh failing, access denied), or git failed
	// against it.
	ErrUnreachable = errors.New("remote unreachable")
	// ErrUnsupportedRemote: a URL scheme ctxgit cannot talk to.
	ErrUnsupportedRemote = errors.New("unsupported remote")
)

// Endpoint is where a remote repository is: a local path, or a URL of the
// git, ssh, http or https kind.
type Endpoint struct {
	Scheme   string // "file", "git", "ssh", "http" or "https"
	User     string
	Password string // http(s) only, from the URL's user info
	Host     string
	Port     string
	Path     string // the repository's path (a local path for "file")
	raw      string
}

// String is the endpoint as given, without a password.
func (e *Endpoint) String() string { return redactURL(e.raw) }

// redactURL drops the password from a URL's user info, so no message
// ever shows it; what is not a URL with one is returned as is.
func redactURL(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "@") {
		return s
	}
	scheme, rest, _ := strings.Cut(s, "://")
	// The user info ends at the last @ before the path: a password may
	// hold an @ of its own.
	hostEnd := len(rest)
	if i := strings.Index(rest, "/"); i >= 0 {
		hostEnd = i
	}
	at := strings.LastIndex(rest[:hostEnd], "@")
	if at < 0 {
		return s
	}
	auth, after := rest[:at], rest[at+1:]
	if user, _, hasPass := strings.Cut(auth, ":"); hasPass {
		return scheme + "://" + user + "@" + after
	}
	return s
}

// ParseEndpoint reads a remote location as git does: a URL
// (git://, ssh://, git+ssh://, http://, https://, file://), scp-like
// "[user@]host:path" (ssh; a colon before any slash), or a local path,
// made absolute against base.
func ParseEndpoint(s, base string) (*Endpoint, error) {
	if s == "" {
		return nil, errors.New("empty remote URL")
	}
	if strings.ContainsAny(s, "\x00\n") {
		return nil, fmt.Errorf("remote URL %q: contains a control character", s)
	}
	if i := strings.Index(s, "://"); i > 0 {
		u, err := url.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("remote URL %q is malformed", redactURL(s))
		}
		s = redactURL(s) // for the messages below
		e := &Endpoint{Scheme: strings.ToLower(u.Scheme), Host: u.Hostname(), Port: u.Port(), Path: u.Path, raw: u.String()}
		if u.User != nil {
			e.User = u.User.Username()
			e.Password, _ = u.User.Password()
		}
		switch e.Scheme {
		case "git+ssh", "ssh+git":
			e.Scheme = "ssh"
		case "file":
			e.Host, e.Port = "", ""
			return e, nil
		case "git", "ssh", "http", "https":
		default:
			return nil, kindf(ErrUnsupportedRemote, "remote URL %q: the %s scheme is not supported (use a path, git://, ssh://, http:// or https://)", s, u.Scheme)
		}
		if e.Host == "" {
			return nil, fmt.Errorf("remote URL %q: no host", s)
		}
		if e.Scheme == "http" || e.Scheme == "https" {
			e.Path = strings.TrimRight(u.EscapedPath(), "/")
			if u.RawQuery != "" {
				return nil, fmt.Errorf("remote URL %q: a query string is not supported", s)
			}
		} else if e.Path == "" {
			return nil, fmt.Errorf("remote URL %q: no repository path", s)
		}
		return e, nil
	}
	colon := strings.IndexByte(s, ':')
	slash := strings.IndexByte(s, '/')
	// On Windows C:\r.git and C:/r.git are local paths, as git reads them
	// (has_dos_drive_prefix in connect.c's url_is_local_not_ssh).
	drive := runtime.GOOS == "windows" && filepath.VolumeName(s) != ""
	if colon > 0 && (slash < 0 || colon < slash) && !drive {
		// scp-like syntax: [user@]host:path, always ssh.
		host, path := s[:colon], s[colon+1:]
		e := &Endpoint{Scheme: "ssh", Host: host, Path: path, raw: s}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			e.User, e.Host = host[:at], host[at+1:]
		}
		e.Host = strings.Trim(e.Host, "[]")
		if e.Host == "" || e.Path == "" {
			return nil, fmt.Errorf("remote %q: want [user@]host:path", s)
		}
		return e, nil
	}
	path := s
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home := gitHome(); home != "" {
			path = filepath.Join(home, rest)
		}
	}
	return &Endpoint{Scheme: "file", Path: ospath.Abs(base, path), raw: s}, nil
}

// RemoteConfig is a remote's section of a repository's git config.
type RemoteConfig struct {
	Name    string
	URL     string
	PushURL string // "" when not set: pushes go to URL
}

// ReadRemotes returns the remotes ([remote "NAME"] sections with a url)
// of the git config file at path; a missing file has none. Includes and
// url.<base>.insteadOf are not applied.
func ReadRemotes(path string) ([]RemoteConfig, error) {
	cfg, err := readGitConfig(path)
	if err != nil {
		return nil, err
	}
	var out []RemoteConfig
	for k, v := range cfg {
		rest, ok := strings.CutPrefix(k, "remote.")
		if !ok {
			continue
		}
		name, ok := strings.CutSuffix(rest, ".url")
		if !ok || name == "" {
			continue
		}
		out = append(out, RemoteConfig{Name: name, URL: v, PushURL: cfg["remote."+name+".pushurl"]})
	}
	slices.SortFunc(out, func(a, b RemoteConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ReadRemoteTimeout reads ctxgit.remoteTimeout from the git config file at
// path: a Go duration ("90s", "5m"); 0 when unset.
func ReadRemoteTimeout(path string) (time.Duration, error) {
	cfg, err := readGitConfig(path)
	if err != nil {
		return 0, err
	}
	v := cfg.get("ctxgit.remotetimeout")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: ctxgit.remoteTimeout %q is not a positive duration such as 90s or 5m", path, v)
	}
	return d, nil
}

// RefUpdate asks a remote to move a ref from Old (zero: create) to New.
type RefUpdate struct {
	Name     string
	Old, New Hash
}

// RefStatus is the remote's answer for one update: Err is "" when the
// ref was updated, else the remote's reason.
type RefStatus struct {
	Name string
	Err  string
}

// Remote is a connection to a remote repository for one direction.
type Remote interface {
	// Refs returns the remote's refs under refs/ctxgit/ (and, opened for
	// pushing, its branches), sorted by name.
	Refs() []Ref
	// Fetch copies into dst the refs named (from Refs) with everything
	// they reach, and returns them as they arrived — their ids can differ
	// from Refs' when the remote moved meanwhile — and how many objects
	// arrived. Only for a remote opened for fetching.
	Fetch(dst FetchStore, refs []Ref) ([]Ref, int, error)
	// Push sends the objects the updates need that the remote lacks
	// (known reports what it has) and asks it to move its refs, each from
	// Old. Only for a remote opened for pushing.
	Push(src Store, updates []RefUpdate, known func(Hash) (bool, error)) ([]RefStatus, int, error)
	// Close ends the connection; after a fetch it removes what was
	// staged, so call it once the fetched refs are recorded.
	Close() error
}

// ConnectOptions tune a connection.
type ConnectOptions struct {
	// Push opens the remote for pushing, else for fetching.
	Push bool
	// Messages receives the remote's own messages (hooks, warnings);
	// nil discards them.
	Messages io.Writer
	// GitDir is the store git runs on for a network remote.
	GitDir string
	// Name is the configured remote's name, given to git so that its
	// config (pushurl, proxy, insteadOf) applies; "" for a URL given.
	Name string
	// PushURL is the URL a configured remote pushes to, listed before a
	// push ("" when it has none).
	PushURL string
	// Timeout bounds each git run for a network remote (0: the default).
	Timeout time.Duration
	// Ctx, when not nil, interrupts the transfer (Ctrl-C): a git run is
	// stopped, a local copy stops between objects with its batch
	// discarded, and no ref is moved after it is done.
	Ctx context.Context
}

// Limits on what a remote may hand ctxgit (docs/design.md, "Transports"): a remote is not
// trusted to be small.
const (
	// MaxRemoteRefs bounds the refs under refs/ctxgit/ a remote may have.
	MaxRemoteRefs = 10000
	// MaxAdvertisement bounds the bytes of a remote's ref listing: git
	// ls-remote's output, or a local remote's packed-refs file.
	MaxAdvertisement = 16 << 20
)

// refLimit is MaxRemoteRefs, lowered by tests that would otherwise write
// ten thousand refs.
var refLimit = MaxRemoteRefs

func tooManyRefs(e *Endpoint) error {
	return fmt.Errorf("%s has more than %d refs under refs/ctxgit/; ctxgit fetches at most that many", e, refLimit)
}

// IsNetwork reports whether the endpoint is reached over a network, and so
// through git.
func (e *Endpoint) IsNetwork() bool { return e.Scheme != "file" }

// Connect opens a remote: a local repository directly (objects and refs
// read and written in place, no git needed), or a network remote through
// the user's git (git://, ssh, http(s)).
func Connect(e *Endpoint, opts ConnectOptions) (Remote, error) {
	switch e.Scheme {
	case "file":
		r, err := openLocalRemote(e, opts.Push)
		if err != nil {
			return nil, err
		}
		r.ctx = opts.Ctx
		return r, nil
	case "git", "ssh", "http", "https":
		return connectGit(e, opts)
	}
	return nil, kindf(ErrUnsupportedRemote, "%s: scheme %s", e, e.Scheme)
}

// localRemote is a repository on this machine, read and written directly.
type localRemote struct {
	ep    *Endpoint
	store *GitStore
	refs  []Ref
	ctx   context.Context // ConnectOptions.Ctx; nil for none
}

func openLocalRemote(e *Endpoint, push bool) (*localRemote, error) {
	dir := e.Path
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, kindf(ErrNoRepository, "%s: no such directory", e)
	}
	common := ""
	if info, err := repoAt(dir); err == nil {
		common = info.CommonDir
	} else if isBareRepo(dir) {
		common, err = commonDir(dir)
		if err != nil {
			return nil, err
		}
	} else {
		return nil, kindf(ErrNoRepository, "%s: not a git repository", e)
	}
	if err := checkLocalRefLimits(e, common); err != nil {
		return nil, err
	}
	store, err := OpenGit(common)
	if err != nil {
		return nil, err
	}
	refs, err := store.ListRefs(RefsPrefixCtxgit)
	if err != nil {
		return nil, err
	}
	if len(refs) > refLimit {
		return nil, tooManyRefs(e)
	}
	if push {
		heads, err := store.ListRefs("refs/heads/")
		if err != nil {
			return nil, err
		}
		refs = append(refs, heads...)
		sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	}
	return &localRemote{ep: e, store: store, refs: refs}, nil
}

// checkLocalRefLimits holds a local remote to the limits before its refs
// are read: its packed-refs a regular file of bounded size (not a pipe
// that never ends), and at most MaxRemoteRefs loose refs under
// refs/ctxgit/, counted without reading them.
func checkLocalRefLimits(e *Endpoint, common string) error {
	packed := filepath.Join(common, "packed-refs")
	if fi, err := os.Lstat(packed); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: packed-refs is not a regular file", e)
		}
		if fi.Size() > MaxAdvertisement {
			return fmt.Errorf("%s: packed-refs is over %d MiB; ctxgit reads at most that much from a remote", e, MaxAdvertisement>>20)
		}
	}
	n := 0
	errTooMany := errors.New("too many")
	err := walkRefFiles(filepath.Join(common, "refs", "ctxgit"), func(string) error {
		if n++; n > refLimit {
			return errTooMany
		}
		return nil
	}, func(err error) error { return err })
	if errors.Is(err, errTooMany) {
		return tooManyRefs(e)
	}
	return err
}

// isBareRepo reports whether dir is a git directory: HEAD, objects/ and
// refs/ (or a commondir file).
func isBareRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	for _, d := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

func (l *localRemote) Refs() []Ref { return l.refs }

func (l *localRemote) Fetch(dst FetchStore, refs []Ref) ([]Ref, int, error) {
	tips := make([]Hash, 0, len(refs))
	type oddObject struct {
		t    ObjectType
		data []byte
	}
	var odd []oddObject
	for _, r := range refs {
		t, data, err := l.store.ReadObject(r.ID)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %s: %w", l.ep, r.Name, err)
		}
		if t == CommitObject {
			tips = append(tips, r.ID)
			continue
		}
		odd = append(odd, oddObject{t, data})
	}
	n, err := CopyObjects(l.ctx, l.store, dst, tips)
	if err != nil {
		return nil, 0, err
	}
	// A ref at a blob, tree or tag is not a checkpoint: the object alone
	// comes, so the caller sees what it is and refuses the ref. After the
	// checkpoints' objects, so that a tree they hold arrives whole and is
	// never taken, present alone, for one that needs no copying.
	for _, o := range odd {
		h := HashObject(o.t, o.data)
		if ok, err := dst.HasObject(h); err != nil {
			return nil, 0, err
		} else if !ok {
			if _, err := dst.WriteObject(o.t, o.data); err != nil {
				return nil, 0, err
			}
			n++
		}
	}
	return refs, n, nil
}

func (l *localRemote) Push(src Store, updates []RefUpdate, _ func(Hash) (bool, error)) ([]RefStatus, int, error) {
	var tips []Hash
	for _, u := range updates {
		if !u.New.IsZero() {
			tips = append(tips, u.New)
		}
	}
	n, err := CopyObjects(l.ctx, src, l.store, tips)
	if err != nil {
		return nil, 0, err
	}
	if l.ctx != nil && l.ctx.Err() != nil {
		// Interrupted after the copy: the objects are complete but no
		// ref names them, as after a push git refused.
		return nil, 0, l.ctx.Err()
	}
	out := make([]RefStatus, 0, len(updates))
	for _, u := range updates {
		var err error
		if u.New.IsZero() {
			err = l.store.DeleteRef(u.Name, u.Old)
		} else {
			err = l.store.UpdateRef(u.Name, u.New, u.Old)
		}
		st := RefStatus{Name: u.Name}
		if err != nil {
			st.Err = err.Error()
			if errors.Is(err, ErrRefConflict) {
				st.Err = "the ref moved while pushing (stale info)"
			}
		}
		out = append(out, st)
	}
	return out, n, nil
}

func (l *localRemote) Close() error { return nil }

// kindError reads as its message alone and matches its kind with
// errors.Is, so a message never ends in the sentinel's words.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

func kindf(kind error, format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: kind}
}
