package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/lockfile"
	"github.com/ctxgit/ctxgit/internal/proc"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
)

// Lock is the workspace lock (SPEC §13): one ctxgit process at a time
// changes a workspace's state files, stat cache and refs.
type Lock struct {
	path  string
	token string
	stop  chan struct{}
	w     *Workspace
}

type lockHolder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Token   string    `json:"token"`
}

// Lock takes the workspace lock, waiting up to the configured timeout. A
// lock whose holder is dead (same host, no such pid) is taken over, and so
// is one from another host whose heartbeat is older than
// lock.stale_after. A live holder on this host is never taken over, even
// one stopped (SIGSTOP, a debugger) for longer than that: it would resume
// and publish its older copy over the taker's write.
func (w *Workspace) Lock() (*Lock, error) { return w.LockContext(context.Background()) }

// LockContext is Lock whose wait ends early, with ctx's error, once ctx is
// done (Ctrl-C while another process holds the lock). A nil ctx is never
// done.
func (w *Workspace) LockContext(ctx context.Context) (*Lock, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	path := w.LocalPath("lock")
	if err := w.prepareLocal(); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	me := lockHolder{PID: os.Getpid(), Host: host, Started: time.Now().UTC(), Token: fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())}
	data, _ := json.Marshal(me)
	timeout := time.Duration(w.Config.Lock.Timeout)
	stale := time.Duration(w.Config.Lock.StaleAfter)
	deadline := time.Now().Add(timeout)
	for delay := 2 * time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.Write(data)
			if werr == nil {
				werr = f.Close()
			} else {
				f.Close()
			}
			if werr != nil {
				os.Remove(path)
				return nil, werr
			}
			l := &Lock{path: path, token: me.Token, stop: make(chan struct{}), w: w}
			w.held = l
			go l.heartbeat(stale / 4)
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("taking the workspace lock %s: %w", path, err)
		}
		holder, raw := readHolder(path)
		if isStale(holder, path, host, stale) && takeOver(path, raw) {
			continue
		}
		// A stale lock that cannot be removed (not ours to remove, or not
		// a file) is waited on like a live one, within the timeout.
		if time.Now().After(deadline) {
			return nil, spec.Conflict("workspace is locked by pid %d since %s (%s); retry, or remove it if that process is gone",
				holder.PID, holder.Started.Format(time.RFC3339), spec.LocalDir+"/lock")
		}
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// maxLockFile bounds the lock's read; ctxgit's is a line of JSON.
const maxLockFile = 4 << 10

// readHolder reads the lock's content; a lock that is unreadable or not
// JSON (a crash between create and write) reads as a zero holder.
func readHolder(path string) (lockHolder, []byte) {
	raw, err := regfile.ReadFile(path, maxLockFile)
	var h lockHolder
	if err == nil {
		json.Unmarshal(raw, &h)
	}
	return h, raw
}

func isStale(h lockHolder, path, host string, staleAfter time.Duration) bool {
	if h.PID == 0 {
		// Empty or garbled: its writer died between create and write, or
		// is writing now. Give it a moment before calling it stale.
		fi, err := os.Lstat(path)
		return err == nil && time.Since(fi.ModTime()) > garbledLockGrace
	}
	if h.Host == host {
		// This host can ask: a live process keeps its lock however long it
		// has not run. Its age says nothing (a stopped process does not
		// heartbeat, yet resumes and writes).
		if !proc.Alive(h.PID) {
			return true
		}
		// Unless the process with that pid started after the lock was
		// taken: the holder died and another process reuses its pid.
		start, ok := proc.StartTime(h.PID)
		return ok && !h.Started.IsZero() && start.After(h.Started.Add(pidReuseSlack))
	}
	// Another host's holder cannot be asked. A live one refreshes the
	// lock's mtime (heartbeat), so only a dead or hung one grows old; one
	// that was only hung finds out before it publishes (Lock.Check).
	last := h.Started
	if fi, err := os.Stat(path); err == nil && fi.ModTime().After(last) {
		last = fi.ModTime()
	}
	return time.Since(last) > staleAfter
}

// heartbeat keeps the lock's mtime fresh while it is held, so a long
// checkpoint (a first snapshot of a huge tree) is never taken for stale.
func (l *Lock) heartbeat(every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			// A lock taken over (another host judged this one hung) is
			// the taker's now: refreshing it would keep it from going
			// stale if the taker dies.
			if l.Check() != nil {
				return
			}
			os.Chtimes(l.path, now, now)
		}
	}
}

// pidReuseSlack absorbs the rounding of a process's start time (Linux
// counts it in ticks from a boot time in whole seconds) when it is
// compared with the time its lock was taken.
const pidReuseSlack = 2 * time.Second

// garbledLockGrace is how long an unreadable lock may exist before it is
// taken for the leftover of a killed process.
const garbledLockGrace = 2 * time.Second

// takeOver removes a stale lock, but only if it still holds what was judged
// stale: the decision is made under a locked guard file (internal/lockfile), so
// two processes can never both remove a lock and one of them remove the other's
// fresh one. It reports whether the lock was removed.
func takeOver(path string, judged []byte) bool {
	g, err := regfile.OpenFile(path+".guard", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false
	}
	defer g.Close()
	if err := lockfile.Lock(g); err != nil {
		return false
	}
	defer lockfile.Unlock(g)
	now, err := regfile.ReadFile(path, maxLockFile)
	if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
		// Not a lock ctxgit made (its lock is a small regular file): a
		// link, FIFO or other entry a repository committed there.
		return os.Remove(path) == nil
	}
	if err != nil || string(now) != string(judged) {
		return false
	}
	return os.Remove(path) == nil
}

// Unlock releases the lock if it is still ours.
func (l *Lock) Unlock() {
	if l == nil {
		return
	}
	close(l.stop)
	if l.w != nil && l.w.held == l {
		l.w.held = nil
	}
	if h, _ := readHolder(l.path); h.Token == l.token {
		os.Remove(l.path)
	}
}

// Check reports whether the lock file still holds this holder's token. A
// holder that lost it (someone removed the lock while this process was
// stopped, or another host took it over as stale) must publish nothing:
// the new holder may have written since, and this process's copy is
// older. The error is a conflict (exit 5).
func (l *Lock) Check() error {
	if l == nil {
		return nil
	}
	h, _ := readHolder(l.path)
	for try := 0; h.Token != l.token && try < 3; try++ {
		// A read that failed for another reason than the file being gone
		// (an indexer or a scanner holding it on Windows) is tried again:
		// a transient error must not make a holder give up its write.
		if _, err := os.Lstat(l.path); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if h.PID != 0 {
			break // someone else's token: taken over
		}
		time.Sleep(time.Duration(try+1) * 5 * time.Millisecond)
		h, _ = readHolder(l.path)
	}
	if h.Token == l.token {
		return nil
	}
	if h.PID == 0 {
		return spec.Conflict("lost the workspace lock (%s was removed while this process held it): nothing written", spec.LocalDir+"/lock")
	}
	return spec.Conflict("lost the workspace lock to pid %d (%s taken over while this process held it): nothing written", h.PID, spec.LocalDir+"/lock")
}

// beforePublishCheck, when set (by tests), runs just before a publishing
// write checks the lock: the instant a stopped holder would resume at.
var beforePublishCheck func()

// CheckHeld checks the lock this workspace holds, if any.
func (w *Workspace) CheckHeld() error {
	if beforePublishCheck != nil {
		beforePublishCheck()
	}
	return w.held.Check()
}

// Publish replaces path with data as WriteFileAtomic does, checking that
// the workspace lock is still this process's just before the rename: the
// rename is what makes the write visible, and a holder that lost the lock
// must not make it (SPEC §13). Without a held lock it is WriteFileAtomic.
func (w *Workspace) Publish(path string, data []byte, perm fs.FileMode) error {
	if w.held == nil {
		return WriteFileAtomic(path, data, perm)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteChecked(path, data, perm, w.CheckHeld)
}
