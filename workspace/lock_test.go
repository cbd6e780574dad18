package workspace

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// lockedWS is an initialised plain-directory workspace.
func lockedWS(t *testing.T) *Workspace {
	t.Helper()
	w := plainWS(t, map[string]string{"a.txt": "a\n"})
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	return w
}

// lockedWrite runs write under the workspace lock, as a state edit does.
func lockedWrite(w *Workspace, write func() error) error {
	lock, err := w.Lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return write()
}

// takeOverDuring makes the lock someone else's at the instant a holder is
// about to publish: what a holder stopped there finds when it resumes
// after another process removed its lock and took a new one.
func takeOverDuring(t *testing.T, w *Workspace) {
	t.Helper()
	beforePublishCheck = func() {
		data, _ := json.Marshal(lockHolder{PID: 4242, Host: "elsewhere", Started: time.Now().UTC(), Token: "4242-1"})
		if err := os.WriteFile(w.LocalPath("lock"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { beforePublishCheck = nil })
}

// SPEC §13: a holder that lost its lock publishes nothing and fails with a
// conflict (exit 5), for each state write and for a checkpoint.
func TestLostLockPublishesNothing(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		run   func(w *Workspace) error
		setup func(t *testing.T, w *Workspace) // before the takeover
	}{
		// The task-state contract's edits (package taskstate) write
		// through these two doors under the lock they took.
		{"state file", []string{".ctxgit/decisions.md"}, func(w *Workspace) error {
			return lockedWrite(w, func() error { return w.WriteStateFile(".ctxgit/decisions.md", []byte("# Decisions\n")) })
		}, nil},
		{"publish", []string{".ctxgit/summaries/latest-summary.md"}, func(w *Workspace) error {
			return lockedWrite(w, func() error {
				return w.Publish(w.Path(".ctxgit/summaries/latest-summary.md"), []byte("# Task summary\n"), 0o644)
			})
		}, nil},
		{"checkpoint", []string{".ctxgit/checkpoint.yaml", ".context-checkpoint.md"}, func(w *Workspace) error {
			_, err := w.Checkpoint(CheckpointOptions{Message: "after the takeover"})
			return err
		}, nil},
		{"recover", []string{spec.RecoveryFile, ".ctxgit/local/recovered/default"}, func(w *Workspace) error {
			_, err := w.Recover(RecoverOptions{Session: spec.DefaultSession, SessionGiven: true, Write: true})
			return err
		}, func(t *testing.T, w *Workspace) {
			if _, err := w.Checkpoint(CheckpointOptions{Message: "to recover"}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := lockedWS(t)
			if c.setup != nil {
				c.setup(t, w)
			}
			before := map[string]string{}
			for _, f := range c.files {
				data, _ := os.ReadFile(w.Path(f))
				before[f] = string(data)
			}
			takeOverDuring(t, w)
			err := c.run(w)
			if spec.ExitCode(err) != spec.ExitConflict || !strings.Contains(err.Error(), "lost the workspace lock to pid 4242") {
				t.Fatalf("err = %v, want a conflict naming the lock's new holder", err)
			}
			for _, f := range c.files {
				data, _ := os.ReadFile(w.Path(f))
				if string(data) != before[f] {
					t.Errorf("%s written after the lock was lost:\n%s", f, data)
				}
			}
			entries, _ := os.ReadDir(w.Path(".ctxgit"))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".ctxgit-tmp-") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
			if c.name == "checkpoint" {
				if _, err := w.Log(spec.DefaultSession, 0); err == nil {
					t.Error("the checkpoint's ref was written after the lock was lost")
				}
			}
			// The new holder's lock is left alone.
			if h, _ := readHolder(w.LocalPath("lock")); h.Token != "4242-1" {
				t.Errorf("the new holder's lock was removed or changed: %+v", h)
			}
		})
	}
}
