package workspace

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// Entry is one checkpoint of a chain, read from its commit alone (the
// message trailers), so listing history never parses YAML.
type Entry struct {
	Commit       vcs.Hash
	Parent       vcs.Hash
	CheckpointID string
	Session      string
	Trigger      string
	Utilization  string
	When         time.Time
	Subject      string
	// Message is what the subject says beyond its checkpoint id and
	// trigger (SPEC §7.2): the checkpoint's message, "" when it had none.
	Message string
}

// What says what happened at the checkpoint, as a log line has it
// (docs/cli.md#log): its message, else its trigger in words; never the
// id and trigger again, which the line has in their own columns.
func (e Entry) What() string {
	if e.Message != "" {
		return e.Message
	}
	return spec.TriggerText(e.Trigger)
}

// LogLine is one line of a log, as `ctxgit log` and the MCP log tool
// print it: a checkpoint, or a restore's two checkpoints as one.
type LogLine struct {
	Entry
	// Safety is the restore's safety checkpoint when the line is a
	// restore (Entry the restored workspace's checkpoint), else "".
	Safety string
}

// LogLines are entries, newest first, as lines: a restore's safety
// checkpoint and the checkpoint of the restored workspace are one line,
// the restore, naming what it restored and the checkpoint that undoes it.
func LogLines(entries []Entry) []LogLine {
	var lines []LogLine
	for i := 0; i < len(entries); i++ {
		l := LogLine{Entry: entries[i]}
		if l.Trigger == spec.TriggerRestored && i+1 < len(entries) && entries[i+1].Trigger == spec.TriggerRestore {
			l.Safety = entries[i+1].CheckpointID
			i++
		}
		lines = append(lines, l)
	}
	return lines
}

// Kind is the line's trigger column: "restore" for a restore's line.
func (l LogLine) Kind() string {
	if l.Safety != "" {
		return "restore"
	}
	return l.Trigger
}

// What is the line's subject: the entry's, and for a restore the
// checkpoint that undoes it.
func (l LogLine) What() string {
	if l.Safety != "" {
		return l.Entry.What() + " · safety checkpoint " + l.Safety
	}
	return l.Entry.What()
}

// entryOf reads a checkpoint commit's trailers.
func entryOf(id vcs.Hash, c *vcs.Commit) Entry {
	e := Entry{Commit: id, When: c.Committer.When.UTC()}
	if len(c.Parents) > 0 {
		e.Parent = c.Parents[0]
	}
	lines := strings.Split(strings.TrimRight(c.Message, "\n"), "\n")
	e.Subject = lines[0]
	for _, l := range lines {
		k, v, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		switch k {
		case "Ctxgit-Session":
			e.Session = v
		case "Ctxgit-Checkpoint":
			e.CheckpointID = v
		case "Ctxgit-Trigger":
			e.Trigger = v
		case "Ctxgit-Utilization":
			e.Utilization = v
		}
	}
	e.Message = subjectMessage(e.Subject, e.CheckpointID, e.Trigger)
	return e
}

// subjectMessage is a subject's message: what follows
// "checkpoint ID (TRIGGER): ". A subject of another form is all message.
func subjectMessage(subject, id, trigger string) string {
	rest, ok := strings.CutPrefix(subject, "checkpoint "+id+" ("+trigger+")")
	if !ok {
		return strings.TrimSpace(subject)
	}
	if m, ok := strings.CutPrefix(rest, ": "); ok {
		return strings.TrimSpace(m)
	}
	return strings.TrimSpace(rest)
}

// Log lists a session's checkpoints, newest first, at most limit (0 = all).
func (w *Workspace) Log(session string, limit int) ([]Entry, error) {
	store, err := w.storeIfAny()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, noCheckpoints(session)
	}
	id, err := store.ReadRef(w.sessionRefFor(session))
	if errors.Is(err, vcs.ErrRefNotFound) {
		return nil, noCheckpoints(session)
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for !id.IsZero() && (limit == 0 || len(out) < limit) {
		c, err := vcs.ReadCommit(store, id)
		if err != nil {
			return out, fmt.Errorf("session %s: %w", session, err)
		}
		e := entryOf(id, c)
		out = append(out, e)
		id = e.Parent
	}
	return out, nil
}

// Sessions lists the sessions that have checkpoints, with their heads. A
// session whose head does not read as a commit is left out and noted
// (BadSessions, SPEC §7.5).
func (w *Workspace) Sessions() ([]vcs.Ref, error) {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		return nil, err
	}
	prefix := spec.SessionRefsPrefix(w.Namespace)
	refs, err := store.ListRefs(prefix)
	if err != nil {
		return nil, err
	}
	out := refs[:0]
	for _, r := range refs {
		key := strings.TrimPrefix(r.Name, prefix)
		if strings.Contains(key, "/") {
			continue // another namespace's refs nested below ours
		}
		if !goodHead(w, store, key, r) {
			continue
		}
		r.Name = key
		out = append(out, r)
	}
	return out, nil
}

// Resolved is a checkpoint found by name.
type Resolved struct {
	Session    string
	Commit     vcs.Hash
	Checkpoint *spec.Checkpoint
	// Explicit is true when the name picked a checkpoint rather than
	// defaulting to the newest.
	Explicit bool
}

var (
	relativeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@(?:~([0-9]+))?$`) })
	hexRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{4,40}$`) })
)

// Resolve finds a checkpoint by name (docs/cli.md#show): "" or "@" (the session's
// newest), "@~N" (N before it), "cp_007", a commit id of at least four hex
// digits, each optionally prefixed "SESSION:".
func (w *Workspace) Resolve(name, session string) (*Resolved, error) {
	return w.resolve(name, session, spec.ValidateSessionKey, "SESSION:")
}

// ResolveRead is Resolve for commands that only read history: sessions
// fetched from a remote are named too, as REMOTE/KEY (docs/cli.md#log).
func (w *Workspace) ResolveRead(name, session string) (*Resolved, error) {
	return w.resolve(name, session, ValidateReadSession, "SESSION: or REMOTE/KEY:")
}

// resolve finds name in session; validate checks a session named before
// the ":", and prefixes says which such prefixes a malformed name's message
// offers.
func (w *Workspace) resolve(name, session string, validate func(string) error, prefixes string) (*Resolved, error) {
	explicit := name != "" && name != "@"
	sessionNamed := strings.Contains(name, ":")
	if sess, rest, ok := strings.Cut(name, ":"); ok {
		if err := validate(sess); err != nil {
			return nil, spec.Usage("checkpoint %q: %v", name, err)
		}
		// The session is named as --session names it for a read: its
		// key, short id or a unique prefix (docs/cli.md#log).
		choice, err := sessionByPrefix(w, sess)
		if err != nil {
			return nil, err
		}
		session, name = choice.Session, rest
	}
	if err := validate(session); err != nil {
		return nil, err
	}
	if !wellFormedName(name) {
		// A malformed name is the user's typing, whatever the session
		// holds: usage, before "no checkpoints" could hide it. The
		// message offers the session prefixes this caller takes.
		return nil, spec.Usage("checkpoint %q: want cp_NNN, @, @~N or a commit id, optionally after %s", name, prefixes)
	}
	store, err := w.storeIfAny()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, noCheckpoints(session)
	}
	head, err := store.ReadRef(w.sessionRefFor(session))
	if errors.Is(err, vcs.ErrRefNotFound) {
		if hexRE().MatchString(name) {
			return w.resolveHexAnywhere(store, name)
		}
		return nil, noCheckpoints(session)
	}
	if err != nil {
		return nil, err
	}
	// The session's short id only for an error: finding it lists every
	// session, which a read of one chain (a hook's, on every compaction)
	// need not pay for.
	found, err := resolveInChain(store, head, name, func() string { return w.ShortSession(session) })
	if errors.Is(err, spec.ErrNotFound) && !sessionNamed && hexRE().MatchString(name) {
		// A commit id is global: one of another session is found there
		// (docs/cli.md#show).
		return w.resolveHexAnywhere(store, name)
	}
	if err != nil {
		return nil, err
	}
	cp, err := readCheckpointAt(store, found)
	if err != nil {
		return nil, err
	}
	return &Resolved{Session: session, Commit: found, Checkpoint: cp, Explicit: explicit}, nil
}

// IsCheckpointName reports whether name has the form of a checkpoint
// name (docs/cli.md#restore): `@`, `@~N`, `cp_NNN`, four to forty hex
// digits, or anything with a `SESSION:` prefix (which Resolve then
// checks), but not a Windows drive (`C:\x`). restore takes an argument
// without that form for a path.
func IsCheckpointName(name string) bool {
	if sess, rest, ok := strings.Cut(name, ":"); ok {
		drive := len(sess) == 1 && (sess[0]|0x20) >= 'a' && (sess[0]|0x20) <= 'z' && (strings.HasPrefix(rest, `\`) || strings.HasPrefix(rest, "/"))
		return !drive
	}
	return name != "" && wellFormedName(name)
}

// wellFormedName reports whether name (after any SESSION: prefix) has one
// of the forms resolveInChain reads, its @~N count included; resolve
// checks it first, so resolveInChain only ever sees these forms.
func wellFormedName(name string) bool {
	if _, ok := spec.ParseCheckpointID(name); ok {
		return true
	}
	if m := relativeRE().FindStringSubmatch(name); m != nil {
		_, err := strconv.Atoi(m[1])
		return m[1] == "" || err == nil
	}
	return name == "" || hexRE().MatchString(name)
}

// whatExists says which checkpoints a session has, for an id it has not:
// its newest, and its oldest when the walk went that far.
func whatExists(newest, oldest string) string {
	switch {
	case oldest == "" || oldest == newest:
		return "its newest is " + newest
	default:
		return "it has " + oldest + " to " + newest
	}
}

// resolveInChain finds the checkpoint name names in the chain from head;
// session names the session in an error, asked only then.
func resolveInChain(store vcs.Store, head vcs.Hash, name string, session func() string) (vcs.Hash, error) {
	if name == "" {
		name = "@"
	}
	if m := relativeRE().FindStringSubmatch(name); m != nil {
		n, _ := strconv.Atoi(m[1]) // "" is 0; wellFormedName refused a count that overflows
		id := head
		for i := 0; i < n; i++ {
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return vcs.ZeroHash, err
			}
			if len(c.Parents) == 0 {
				return vcs.ZeroHash, spec.NotFound("checkpoint %q: session %s has only %s", name, session(), spec.Plural(i+1, "checkpoint"))
			}
			id = c.Parents[0]
		}
		return id, nil
	}
	if seq, ok := spec.ParseCheckpointID(name); ok {
		newest, oldest := "", ""
		for id := head; !id.IsZero(); {
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return vcs.ZeroHash, err
			}
			e := entryOf(id, c)
			if newest == "" {
				newest = e.CheckpointID
			}
			oldest = e.CheckpointID
			if n, _ := spec.ParseCheckpointID(e.CheckpointID); n == seq {
				return id, nil
			}
			if n, _ := spec.ParseCheckpointID(e.CheckpointID); n != 0 && n < seq {
				oldest = ""
				break // ids only fall along the chain
			}
			id = e.Parent
		}
		return vcs.ZeroHash, spec.NotFound("no checkpoint %s in session %s (%s; ctxgit log lists them)", name, session(), whatExists(newest, oldest))
	}
	if hexRE().MatchString(name) {
		name = strings.ToLower(name)
		var match vcs.Hash
		n := 0
		for id := head; !id.IsZero(); {
			if strings.HasPrefix(id.String(), name) {
				match, n = id, n+1
			}
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return vcs.ZeroHash, err
			}
			id = entryOf(id, c).Parent
		}
		switch n {
		case 0:
			return vcs.ZeroHash, spec.NotFound("no checkpoint %s in session %s", name, session())
		case 1:
			return match, nil
		}
		var hits []string
		short := session()
		for id := head; !id.IsZero(); {
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return vcs.ZeroHash, err
			}
			e := entryOf(id, c)
			if strings.HasPrefix(id.String(), name) {
				hits = append(hits, idPrefix(id, name)+" ("+short+":"+e.CheckpointID+")")
			}
			id = e.Parent
		}
		return vcs.ZeroHash, ambiguousID(name, "in session "+short, hits)
	}
	return vcs.ZeroHash, fmt.Errorf("checkpoint %q: not a form wellFormedName accepts", name)
}

// resolveHexAnywhere finds a commit id prefix in any session.
func (w *Workspace) resolveHexAnywhere(store vcs.Store, name string) (*Resolved, error) {
	sessions, err := w.Sessions()
	if err != nil {
		return nil, err
	}
	var hits []*Resolved
	var names []string
	name = strings.ToLower(name)
	for _, s := range sessions {
		for id := s.ID; !id.IsZero(); {
			c, err := vcs.ReadCommit(store, id)
			if err != nil {
				return nil, fmt.Errorf("session %s: %w", s.Name, err)
			}
			e := entryOf(id, c)
			if strings.HasPrefix(id.String(), name) {
				hits = append(hits, &Resolved{Session: s.Name, Commit: id, Explicit: true})
				names = append(names, idPrefix(id, name)+" ("+s.Name+":"+e.CheckpointID+")")
			}
			id = e.Parent
		}
	}
	switch len(hits) {
	case 0:
		return nil, spec.NotFound("no checkpoint %s in any session", name)
	case 1:
		cp, err := readCheckpointAt(store, hits[0].Commit)
		if err != nil {
			return nil, err
		}
		hits[0].Checkpoint = cp
		return hits[0], nil
	}
	return nil, ambiguousID(name, "across sessions", names)
}

// idPrefix is enough of id to tell it from the others that begin with
// the prefix typed: twelve digits, or four more than typed.
func idPrefix(id vcs.Hash, typed string) string {
	return id.String()[:min(len(id.String()), max(12, len(typed)+4))]
}

// ambiguousID is the usage error for a commit id prefix that names more
// than one checkpoint, listing them (at most five).
func ambiguousID(name, where string, hits []string) error {
	sort.Strings(hits)
	if len(hits) > 5 {
		hits = append(hits[:5], "…")
	}
	return spec.Usage("checkpoint id %s is ambiguous %s: it begins %s (give more digits)", name, where, strings.Join(hits, ", "))
}

// Newest finds the workspace's newest checkpoint across sessions (SPEC
// §7.3): the session head with the latest committer time, ties broken by
// session key. It returns nil when there is none.
func (w *Workspace) Newest() (*Resolved, error) {
	store, err := w.storeIfAny()
	if err != nil || store == nil {
		return nil, err
	}
	sessions, err := w.Sessions()
	if err != nil {
		return nil, err
	}
	var best *Resolved
	var bestWhen time.Time
	for _, s := range sessions {
		c, err := vcs.ReadCommit(store, s.ID)
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", s.Name, err)
		}
		if best == nil || c.Committer.When.After(bestWhen) {
			best, bestWhen = &Resolved{Session: s.Name, Commit: s.ID}, c.Committer.When
		}
	}
	if best == nil {
		return nil, nil
	}
	cp, err := readCheckpointAt(store, best.Commit)
	if err != nil {
		return nil, err
	}
	best.Checkpoint = cp
	return best, nil
}

// Changes diffs the workspace between two checkpoint commits, leaving out
// ctxgit's own outputs.
func (w *Workspace) Changes(from, to vcs.Hash) ([]vcs.Change, error) {
	store, err := w.storeIfAny()
	if err != nil {
		return nil, err
	}
	var a vcs.Hash
	if !from.IsZero() {
		c, err := vcs.ReadCommit(store, from)
		if err != nil {
			return nil, err
		}
		a = c.Tree
	}
	c, err := vcs.ReadCommit(store, to)
	if err != nil {
		return nil, err
	}
	return diffWorkspace(store, a, c.Tree)
}

// TaskChange is a task-state field that differs between two checkpoints.
type TaskChange struct {
	Field, From, To string
}

// TaskChanges lists the changes of the fields a reader follows: phase,
// next action, status and goal (docs/cli.md#diff).
func TaskChanges(a, b *spec.TaskState) []TaskChange {
	if a == nil {
		a = &spec.TaskState{}
	}
	if b == nil {
		b = &spec.TaskState{}
	}
	var out []TaskChange
	for _, f := range []struct{ name, from, to string }{
		{"current_phase", a.CurrentPhase, b.CurrentPhase}, {"next_action", a.NextAction, b.NextAction},
		{"status", a.Status, b.Status}, {"goal", a.Goal, b.Goal},
	} {
		if f.from != f.to {
			out = append(out, TaskChange{f.name, f.from, f.to})
		}
	}
	return out
}

// chainRoot is the oldest checkpoint on the chain below head. A checkpoint
// whose session base was pruned away diffs against it instead (SPEC §14.2).
func chainRoot(store vcs.Store, head vcs.Hash) (vcs.Hash, *vcs.Commit, error) {
	id := head
	for {
		c, err := vcs.ReadCommit(store, id)
		if err != nil {
			return vcs.ZeroHash, nil, err
		}
		if len(c.Parents) == 0 {
			return id, c, nil
		}
		id = c.Parents[0]
	}
}
