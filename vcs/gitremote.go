package vcs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Network remotes (http, https, ssh, scp-like, git://) go through the
// user's own git, run on the checkpoint store: credential helpers, SSH
// config, proxies, url.<base>.insteadOf and protocol v2 then work as they
// do for the user's pushes, and ctxgit carries no network code of its own.
// ctxgit still decides every ref itself: it lists the remote's refs, asks
// for explicit refspecs, checks what arrived before any of its refs move,
// and pushes each ref as a compare-and-swap (--force-with-lease with the
// value it read).

// ErrNoGit: a network remote, and no git in PATH to reach it with.
var ErrNoGit = errors.New("git is not installed")

// ErrTimeout: the remote did not finish within the timeout.
var ErrTimeout = errors.New("remote timed out")

// DefaultRemoteTimeout bounds one git run against a network remote when
// the user sets no other (docs/design.md, "Transports").
const DefaultRemoteTimeout = 5 * time.Minute

// stagePrefix is where a fetch through git lands refs before ctxgit checks
// them: outside refs/ctxgit/ so no reader ever sees them as sessions, and
// unique per fetch so two fetches never share one.
const stagePrefix = "refs/ctxgit-fetch/"

// gitRemote is a network remote reached by running git.
type gitRemote struct {
	ep       *Endpoint
	target   string // what git is given: the configured remote's name, or the URL
	gitDir   string
	git      string
	timeout  time.Duration
	ctx      context.Context // ConnectOptions.Ctx, or one never done
	msgs     io.Writer
	refs     []Ref
	staged   string // the staging prefix of a fetch, to remove on Close
	stageDir FetchStore
}

func connectGit(e *Endpoint, opts ConnectOptions) (Remote, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, kindf(ErrNoGit, "%s is a network remote: ctxgit pushes and fetches it with git, and no git is in PATH (install git, or use a local path)", e)
	}
	if opts.GitDir == "" {
		return nil, errors.New("a network remote needs a store to run git on")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultRemoteTimeout
	}
	target := opts.Name
	if target == "" {
		target = e.raw
	}
	r := &gitRemote{ep: e, target: target, gitDir: opts.GitDir, git: git, timeout: timeout, ctx: opts.Ctx, msgs: opts.Messages}
	if r.ctx == nil {
		r.ctx = context.Background()
	}
	// ls-remote reads the fetch URL; a push lists where it pushes.
	listAt := target
	if opts.Push && opts.PushURL != "" {
		listAt = opts.PushURL
	}
	patterns := []string{RefsPrefixCtxgit + "*"}
	if opts.Push {
		// Branches only tell what the remote surely has, for the count
		// of objects a push sends (docs/cli.md#push).
		patterns = append(patterns, "refs/heads/*")
	}
	out, err := r.run(nil, maxListing, append([]string{"ls-remote", "--", listAt}, patterns...)...)
	if err != nil {
		return nil, err
	}
	refs, err := parseLsRemote(e, out)
	if err != nil {
		return nil, err
	}
	r.refs = refs
	return r, nil
}

// maxListing is MaxAdvertisement, lowered by the test of the cap.
var maxListing int64 = MaxAdvertisement

// RefsPrefixCtxgit is the prefix of every ref ctxgit shares.
const RefsPrefixCtxgit = "refs/ctxgit/"

// parseLsRemote reads `git ls-remote` output, holding the remote to the
// limits on refs (docs/design.md, "Transports").
func parseLsRemote(e *Endpoint, out []byte) ([]Ref, error) {
	var refs []Ref
	ours := 0
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		hexID, name, ok := strings.Cut(line, "\t")
		id, err := ParseHash(hexID)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: git ls-remote printed %q, not a ref", e, truncate(line, 80))
		}
		if strings.HasSuffix(name, "^{}") || CheckRefName(name) != nil {
			continue
		}
		if strings.HasPrefix(name, RefsPrefixCtxgit) {
			if ours++; ours > refLimit {
				return nil, tooManyRefs(e)
			}
		}
		refs = append(refs, Ref{Name: name, ID: id})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

func (r *gitRemote) Refs() []Ref { return r.refs }

// Fetch runs git fetch with one refspec per ref, forced, into a staging
// namespace of its own, and returns the refs as they arrived there: git
// has then checked the pack and that the history is connected, and the
// caller checks what the refs point at before moving any of its own.
func (r *gitRemote) Fetch(dst FetchStore, refs []Ref) ([]Ref, int, error) {
	if len(refs) == 0 {
		return nil, 0, nil
	}
	var tok [6]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, 0, err
	}
	now := time.Now()
	removeStaleStages(dst, now, max(time.Hour, 2*r.timeout))
	// The namespace starts with its time, so that one a killed fetch left
	// is known to be stale and removed by a later fetch.
	stage := fmt.Sprintf("%s%d-%s/", stagePrefix, now.Unix(), hex.EncodeToString(tok[:]))
	r.gitDir = dst.CommonDir()
	var spec strings.Builder
	for _, ref := range refs {
		fmt.Fprintf(&spec, "+%s:%s%s\n", ref.Name, stage, strings.TrimPrefix(ref.Name, "refs/"))
	}
	before := dst.ObjectCount()
	r.staged, r.stageDir = stage, dst
	// --refmap= keeps a configured fetch refspec from moving refs of its
	// own on the side; no tags, FETCH_HEAD, submodules, pruning or
	// automatic gc: this fetch writes the staged refs and objects only.
	_, stderr, err := r.runStderr([]byte(spec.String()), 0, "fetch", "--stdin", "--refmap=", "--no-tags", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-prune", "--no-auto-maintenance", "--", r.target)
	if err != nil {
		return nil, 0, err
	}
	got, err := dst.ListRefs(stage)
	if err != nil {
		return nil, 0, err
	}
	arrived := map[string]bool{}
	for i := range got {
		got[i].Name = "refs/" + strings.TrimPrefix(got[i].Name, stage)
		arrived[got[i].Name] = true
	}
	// git skips a ref it will not write with a warning and exits 0 (a
	// shallow remote's, for one); every ref asked for must have come.
	for _, ref := range refs {
		if !arrived[ref.Name] {
			why := ref.Name + " did not arrive"
			if w := stderr.warning(); w != "" {
				why = strings.ReplaceAll(w, stage, "refs/")
			}
			return nil, 0, fmt.Errorf("%s sent an incomplete history (%s); no session was updated", r.ep, redactURLs(why))
		}
	}
	n := dst.ObjectCount() - before
	if n < 0 {
		n = 0
	}
	return got, n, nil
}

// Push runs git push: one refspec NEW:REF per update, each with
// --force-with-lease=REF:OLD, so the remote moves a ref only from the
// value ctxgit read (and creates one only where there was none). The
// user's pre-push hook is not run: checkpoints are not the user's work to
// vet, and a hook such as git-lfs's would act on them.
func (r *gitRemote) Push(src Store, updates []RefUpdate, known func(Hash) (bool, error)) ([]RefStatus, int, error) {
	var tips []Hash
	args := []string{"push", "--porcelain", "--no-verify", "--recurse-submodules=no", "--no-follow-tags"}
	for _, u := range updates {
		old := ""
		if !u.Old.IsZero() {
			old = u.Old.String()
		}
		args = append(args, "--force-with-lease="+u.Name+":"+old)
		tips = append(tips, u.New)
	}
	ids, err := ReachableObjects(src, tips, known)
	if err != nil {
		return nil, 0, err
	}
	args = append(args, "--", r.target)
	for _, u := range updates {
		args = append(args, u.New.String()+":"+u.Name)
	}
	out, err := r.run(nil, 0, args...)
	statuses := parsePushPorcelain(out)
	if len(statuses) == 0 && err != nil {
		return nil, 0, err
	}
	return statuses, len(ids), nil
}

// parsePushPorcelain reads `git push --porcelain`: FLAG TAB FROM:TO TAB
// SUMMARY [(REASON)] per ref; "!" is a refusal.
func parsePushPorcelain(out []byte) []RefStatus {
	var st []RefStatus
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 || len(f[0]) != 1 {
			continue
		}
		_, to, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		s := RefStatus{Name: to}
		if f[0] == "!" {
			s.Err = pushReason(f[2])
		}
		st = append(st, s)
	}
	return st
}

// pushReason turns git's "[remote rejected] (pre-receive hook declined)"
// into "pre-receive hook declined", and "[rejected] (stale info)" into
// the ref having moved.
func pushReason(summary string) string {
	reason := summary
	if i := strings.Index(summary, "("); i >= 0 && strings.HasSuffix(summary, ")") {
		reason = summary[i+1 : len(summary)-1]
	}
	if reason == "stale info" {
		return "the ref moved while pushing (stale info)"
	}
	return reason
}

// removeStaleStages deletes the staging refs of fetches that began more
// than maxAge before now: a fetch killed before its Close left them, and
// they would keep what it fetched from ever being pruned. Errors are
// ignored; the next fetch tries again.
func removeStaleStages(g Store, now time.Time, maxAge time.Duration) {
	refs, err := g.ListRefs(stagePrefix)
	if err != nil {
		return
	}
	for _, ref := range refs {
		ns, _, _ := strings.Cut(strings.TrimPrefix(ref.Name, stagePrefix), "/")
		secs, _, _ := strings.Cut(ns, "-")
		began, err := strconv.ParseInt(secs, 10, 64)
		if err != nil || now.Sub(time.Unix(began, 0)) > maxAge {
			g.DeleteRef(ref.Name, ref.ID)
		}
	}
}

func (r *gitRemote) Close() error {
	if r.staged == "" {
		return nil
	}
	refs, err := r.stageDir.ListRefs(r.staged)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		if err := r.stageDir.DeleteRef(ref.Name, ref.ID); err != nil {
			return err
		}
	}
	r.staged = ""
	return nil
}

// run runs git on the store with the timeout, passing the remote's own
// messages ("remote: …") on, and returns its stdout (at most limit bytes
// when limit > 0). A failure is one line: git's reason.
func (r *gitRemote) run(stdin []byte, limit int64, args ...string) ([]byte, error) {
	out, _, err := r.runStderr(stdin, limit, args...)
	return out, err
}

// runStderr is run, also returning what git said on stderr.
func (r *gitRemote) runStderr(stdin []byte, limit int64, args ...string) ([]byte, *gitStderr, error) {
	// Ctrl-C stops git as the timeout does (the caller reports it).
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.git, args...)
	cmd.SysProcAttr = gitProcAttr()
	cmd.Cancel = func() error { return stopGit(cmd) }
	// A git that ignores being asked to stop is killed after WaitDelay;
	// a grandchild (ssh, git-remote-https) that outlives a killed git
	// must not keep ctxgit waiting on the pipes it holds.
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = GitEnviron(os.Environ(), r.gitDir)
	cmd.Dir = r.gitDir
	if _, err := os.Stat(r.gitDir); err != nil {
		// A private store that does not exist yet (a fetch creates it
		// once the remote has answered): git lists a URL without one.
		cmd.Env = GitEnviron(os.Environ(), "")
		cmd.Dir = os.TempDir()
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout boundedBuffer
	stdout.limit = limit
	stdout.onFull = cancel
	stderr := &gitStderr{msgs: r.msgs}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err := runGit(cmd, gitMemoryLimit(args[0]))
	killGroup(cmd)
	stderr.flush()
	switch {
	case stdout.over:
		return nil, stderr, fmt.Errorf("%s: the ref listing is over %d MiB; ctxgit reads at most that much from a remote", r.ep, limit>>20)
	case r.ctx.Err() != nil:
		return nil, stderr, fmt.Errorf("%s: %w", r.ep, r.ctx.Err())
	case ctx.Err() == context.DeadlineExceeded:
		return stdout.buf.Bytes(), stderr, kindf(ErrTimeout, "%s did not finish within %s (set a longer one with --timeout, or git config ctxgit.remoteTimeout)", r.ep, r.timeout)
	case err == nil:
		return stdout.buf.Bytes(), stderr, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, stderr, fmt.Errorf("running git: %w", err)
	}
	if stderr.outOfMemory() {
		return nil, stderr, memoryMessage(r.ep, args[0])
	}
	msg := redactURLs(stderr.reason())
	if msg == "" {
		msg = fmt.Sprintf("git %s exited with status %d", args[0], ee.ExitCode())
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "repository") && strings.Contains(low, "not found"):
		return stdout.buf.Bytes(), stderr, kindf(ErrNoRepository, "%s: %s", r.ep, msg)
	case args[0] == "push" && stdout.buf.Len() > 0:
		// Refusals are in the porcelain output; the caller reads them.
		return stdout.buf.Bytes(), stderr, kindf(ErrUnreachable, "%s: %s", r.ep, msg)
	}
	return stdout.buf.Bytes(), stderr, kindf(ErrUnreachable, "cannot reach %s: %s", r.ep, msg)
}

// GitEnviron is the environment git runs with on a store: the caller's,
// without the variables that would point git at another repository, and
// GIT_DIR set to gitDir ("" sets none).
func GitEnviron(environ []string, gitDir string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX":
			continue
		}
		out = append(out, kv)
	}
	if gitDir != "" {
		out = append(out, "GIT_DIR="+gitDir)
	}
	return out
}

// boundedBuffer keeps what a child writes, up to limit bytes (0: no
// limit); past it, it calls onFull once and drops the rest.
type boundedBuffer struct {
	buf    bytes.Buffer
	limit  int64
	over   bool
	onFull func()
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.over {
		return len(p), nil
	}
	if b.limit > 0 && int64(b.buf.Len()+len(p)) > b.limit {
		b.over = true
		b.onFull()
		return len(p), nil
	}
	return b.buf.Write(p)
}

// gitStderr splits git's stderr: "remote: " lines are the remote's words
// for the user and go to msgs; the rest is kept (bounded) to explain a
// failure.
type gitStderr struct {
	mu      sync.Mutex
	msgs    io.Writer
	partial []byte
	lines   []string
}

// maxStderrLines bounds what is kept of git's own lines.
const maxStderrLines = 64

func (g *gitStderr) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.partial = append(g.partial, p...)
	for {
		i := bytes.IndexAny(g.partial, "\r\n")
		if i < 0 {
			if len(g.partial) > 4096 {
				i = 4095
			} else {
				return len(p), nil
			}
		}
		g.line(string(g.partial[:i]))
		g.partial = g.partial[i+1:]
	}
}

func (g *gitStderr) flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.partial) > 0 {
		g.line(string(g.partial))
		g.partial = nil
	}
}

func (g *gitStderr) line(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		if n := len(g.lines); n > 0 && n < maxStderrLines && g.lines[n-1] != "" {
			g.lines = append(g.lines, "") // ends a fatal message's continuation
		}
		return
	}
	if msg, ok := strings.CutPrefix(s, "remote: "); ok {
		if g.msgs != nil && strings.TrimSpace(msg) != "" {
			fmt.Fprintln(g.msgs, redactURLs(msg))
		}
		return
	}
	if len(g.lines) < maxStderrLines {
		g.lines = append(g.lines, s)
	}
}

// reason is git's explanation of a failure, as one line: what a helper
// (ssh) said before git gave up, then git's fatal or error lines and their
// continuation up to a blank line, without prefixes or git's boilerplate.
func (g *gitStderr) reason() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var before, fatal []string
	state := 0 // 0: before the first fatal line, 1: in it, 2: past it
	for _, l := range g.lines {
		switch {
		case l == "":
			if state == 1 {
				state = 2
			}
		case strings.HasPrefix(l, "fatal: "), strings.HasPrefix(l, "error: "):
			state = 1
			l = l[strings.Index(l, ": ")+2:]
			if strings.TrimRight(l, ".") == "Could not read from remote repository" && (len(before) > 0 || len(fatal) > 0) {
				continue
			}
			fatal = append(fatal, strings.TrimRight(l, ".:"))
		case strings.HasPrefix(l, "hint: "), strings.HasPrefix(l, "warning: "), strings.HasPrefix(l, "To "):
		case state == 0:
			before = append(before, l)
		case state == 1:
			fatal = append(fatal, strings.TrimRight(l, ".:"))
		}
	}
	return strings.Join(dedupe(append(before, fatal...)), ": ")
}

// outOfMemory reports whether git (or a helper it ran) said it ran out
// of memory: git's xmalloc dies "Out of memory, malloc failed", curl
// "Out of memory", the runtime of either "Cannot allocate memory".
func (g *gitStderr) outOfMemory() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range g.lines {
		low := strings.ToLower(l)
		if strings.Contains(low, "out of memory") || strings.Contains(low, "cannot allocate memory") {
			return true
		}
	}
	return false
}

// warning is git's warning about a ref it rejected, else its last
// warning, without the prefix.
func (g *gitStderr) warning() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	last := ""
	for _, l := range g.lines {
		if w, ok := strings.CutPrefix(l, "warning: "); ok {
			if strings.Contains(w, "rejected") {
				return w
			}
			last = w
		}
	}
	return last
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

var urlPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(://[^/@:\s]*):[^@/\s]*@`) })

// redactURLs drops passwords from any URL in git's text.
func redactURLs(s string) string { return urlPassword().ReplaceAllString(s, "$1@") }

// ObjectCount counts the store's own objects: loose ones and those in its
// packs' indexes. A fetch through git reports what it added as the
// difference.
func (g *GitStore) ObjectCount() int {
	n, _, _ := g.LooseObjects()
	packs, _ := filepath.Glob(filepath.Join(g.objDir, "pack", "pack-*.idx"))
	for _, p := range packs {
		n += idxCount(p)
	}
	return n
}

// idxCount reads a pack index's object count: the last fanout entry.
func idxCount(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var hdr [8 + 256*4]byte
	if _, err := io.ReadFull(bufio.NewReader(f), hdr[:]); err != nil {
		return 0
	}
	at := 0
	if bytes.Equal(hdr[:4], idxMagic) {
		at = 8
	}
	return int(binary.BigEndian.Uint32(hdr[at+255*4:]))
}
