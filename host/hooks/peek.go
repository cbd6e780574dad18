package hooks

import (
	"encoding/json"
	"os"
	"sort"
	"time"
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

// PeekAt reads the hooks' markers for session under root.
func PeekAt(root, session string) Peek {
	var p Peek
	p.RecoveryPending = exists(pendingPath(root, session))
	entries, _ := os.ReadDir(localPath(root, failedDir))
	for _, e := range entries {
		data, err := os.ReadFile(localPath(root, failedDir, e.Name()))
		if err != nil || len(data) > 4096 {
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
