package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/workspace"
)

// job is work a hook hands to a detached child: the host's payload and
// the checkpoint's trigger. It lives in .ctxgit/local/jobs/ until the
// child has read it.
type job struct {
	Input   json.RawMessage `json:"input"`
	Trigger string          `json:"trigger"`
}

// deferCheckpoint takes a checkpoint in a detached child, so that the hook
// answers its host at once whatever the checkpoint costs (a first snapshot
// of a large repository; a short SessionEnd budget). The child
// takes the workspace lock like any checkpoint. Without Spawn, or with
// CTXGIT_HOOK_DETACH=0, the checkpoint is taken inline.
func (c *call) deferCheckpoint(w *workspace.Workspace, trigger string) error {
	if c.Spawn == nil || c.Env.Getenv("CTXGIT_HOOK_DETACH") == "0" {
		_, err := w.Checkpoint(c.checkpointOptions(w, trigger, false))
		return err
	}
	data, err := json.Marshal(job{Input: json.RawMessage(c.Input), Trigger: trigger})
	if err != nil {
		return err
	}
	path := localPath(w.Root, "jobs", fmt.Sprintf("%s-%s-%d.json", c.session, c.Event, c.Env.Now().UnixNano()))
	if err := workspace.WriteLocal(w.Root, path, data, 0o600); err != nil {
		return err
	}
	if err := c.Spawn([]string{"hook", c.Host, c.Event, "--root", w.Root, "--job", path}); err != nil {
		workspace.RemoveLocal(w.Root, path)
		return fmt.Errorf("starting the detached checkpoint: %w", err)
	}
	return nil
}

// runJob is the detached child's work: read the job file, take its
// checkpoint with the payload's transcript and usage, waiting for the
// workspace lock as long as the config allows (no host waits for it), and
// only then remove the file, so that an empty jobs directory means no
// detached checkpoint is still writing.
func (c *call) runJob() error {
	// The job file is the parent's, under --root's .ctxgit/local/jobs/:
	// the hook payload it carries is bounded as the hook's input is.
	data, err := workspace.ReadLocal(c.Root, c.Job, hookpath.MaxInput+4096)
	if err != nil {
		return err
	}
	defer workspace.RemoveLocal(c.Root, c.Job)
	var j job
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("job %s: %v", filepath.Base(c.Job), err)
	}
	c.Input = j.Input
	if err := json.Unmarshal(j.Input, &c.p); err != nil {
		return fmt.Errorf("job %s: payload: %v", filepath.Base(c.Job), err)
	}
	c.session = sessionKey(c.Host, c.p, c.Env)
	c.dir = payloadDir(c.p, c.Env)
	w, err := c.workspace()
	if err != nil {
		return err
	}
	_, err = w.Checkpoint(c.checkpointOptions(w, j.Trigger, false))
	return err
}

// compactionJobWait bounds how long a compaction checkpoint waits for this
// session's detached checkpoints still in flight (awaitJobs). Every
// compaction event ctxgit installs has a 30 s budget; with the lock wait
// (hookLockWait) and the checkpoint itself this stays far inside it.
// Gemini's compaction checkpoint, confirmed in a 5 s AfterTool, waits
// geminiJobWait instead.
var (
	compactionJobWait = 2 * time.Second
	geminiJobWait     = time.Second
)

// staleJob is the age past which a job file is not waited for: its child
// died before reading it, or has waited this long for the lock already,
// and a compaction's short wait would not see it land.
const staleJob = time.Minute

// awaitJobs waits, at most limit, until no detached checkpoint of this
// session is in flight (its job file gone: runJob removes it only after
// the checkpoint is written). A compaction checkpoint taken after it is
// then the session's newest, so the recovery built from the newest
// checkpoint is the compaction's, whatever order the host's events and
// the detached children ran in (docs/design.md, "The compaction
// checkpoint is the newest"). Past the limit it goes on: a hook never
// blocks its host for ctxgit's own work.
func (c *call) awaitJobs(root string, limit time.Duration) {
	dir := localPath(root, "jobs")
	deadline := time.Now().Add(limit)
	for jobsInFlight(root, dir, c.session, time.Now()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// jobsInFlight counts the job files in dir of session's detached
// checkpoints (named SESSION-EVENT-NANOS.json by deferCheckpoint), not
// older than staleJob. No jobs directory, the usual case, is one failed
// open.
func jobsInFlight(root, dir, session string, now time.Time) int {
	entries, err := workspace.ReadLocalDir(root, dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !ownJob(e.Name(), session) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) < staleJob {
			n++
		}
	}
	return n
}

// ownJob reports whether a job file's name is session's: a session key may
// hold '-', so the event after the key must be one that defers its
// checkpoint, followed by the time.
func ownJob(name, session string) bool {
	rest, ok := strings.CutPrefix(name, session+"-")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, ".json")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return false
	}
	if _, err := strconv.ParseInt(rest[i+1:], 10, 64); err != nil {
		return false
	}
	switch rest[:i] {
	case "session-start", "session-end":
		return true
	}
	return false
}
