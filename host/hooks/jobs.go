package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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
	if err := workspace.PrepareLocal(w.Root); err != nil {
		return err
	}
	dir := localPath(w.Root, "jobs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.json", c.session, c.Event, c.Env.Now().UnixNano()))
	if err := workspace.WriteFileAtomic(path, data, 0o600); err != nil {
		return err
	}
	if err := c.Spawn([]string{"hook", c.Host, c.Event, "--root", w.Root, "--job", path}); err != nil {
		os.Remove(path)
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
	data, err := os.ReadFile(c.Job)
	if err != nil {
		return err
	}
	defer os.Remove(c.Job)
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
