package hooks

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/ctxgit/ctxgit/workspace"
)

// HookFailure is one host event whose last call failed.
type HookFailure struct {
	Host  string    `json:"host"`
	Event string    `json:"event"`
	At    time.Time `json:"at"`
}

// Peek is what the hooks left for a person's overview (docs/cli.md#description):
// whether a recovery waits for the session's next event, and the events
// whose last call failed, newest first. It only reads.
type Peek struct {
	RecoveryPending bool
	Failures        []HookFailure
}

// maxFailureMarker bounds a hook-failed marker's read: a line of JSON.
const maxFailureMarker = 4096

// PeekAt reads the hooks' markers for session under root.
func PeekAt(root, session string) Peek {
	var p Peek
	p.RecoveryPending = workspace.LocalExists(root, pendingPath(root, session))
	// By the file rule (workspace.ReadLocal): a marker a repository
	// committed as a link to /dev/zero is refused, not read without end.
	entries, _ := workspace.ReadLocalDir(root, localPath(root, failedDir))
	for _, e := range entries {
		data, err := workspace.ReadLocal(root, localPath(root, failedDir, e.Name()), maxFailureMarker)
		if err != nil {
			continue
		}
		var f failure
		if json.Unmarshal(data, &f) != nil || f.Host == "" {
			continue
		}
		p.Failures = append(p.Failures, HookFailure{Host: f.Host, Event: f.Event, At: f.At})
	}
	sort.Slice(p.Failures, func(i, j int) bool { return p.Failures[i].At.After(p.Failures[j].At) })
	return p
}
