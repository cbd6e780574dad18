package taskstate

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// readingsDir holds the newest context reading a hook saw per session
// (docs/cli.md#status): `ctxgit status` without --pressure uses it.
const readingsDir = "readings"

// recordedReading is a reading as kept on disk.
type recordedReading struct {
	Value  float64   `json:"value"`
	Tokens int64     `json:"tokens,omitempty"`
	Window int64     `json:"window,omitempty"`
	Source string    `json:"source"`
	At     time.Time `json:"at"`
}

func readingPath(root, session string) string {
	return filepath.Join(root, filepath.FromSlash(spec.LocalDir), readingsDir, session+".json")
}

// RecordReading keeps p as the session's newest reading, atomically. A
// reading within a percent of the kept one and less than a minute newer is
// not written: status lines refresh every turn.
func RecordReading(root, session string, p Pressure, now time.Time) error {
	if !p.Known || math.IsNaN(p.Value) || spec.ValidateSessionKey(session) != nil {
		return nil
	}
	path := readingPath(root, session)
	if old, ok := readReading(root, path); ok && math.Abs(old.Value-p.Value) < 0.01 && now.Sub(old.At) < time.Minute && !now.Before(old.At) {
		return nil
	}
	data, err := json.Marshal(recordedReading{Value: p.Value, Tokens: p.Tokens, Window: p.Window, Source: p.Source, At: now.UTC()})
	if err != nil {
		return err
	}
	return workspace.WriteLocal(root, path, append(data, '\n'), 0o644)
}

// ForgetReading drops the session's reading: after a compaction the
// context is small again and the old reading says nothing.
func ForgetReading(root, session string) {
	workspace.RemoveLocal(root, readingPath(root, session))
}

func readReading(root, path string) (recordedReading, bool) {
	var r recordedReading
	data, err := workspace.ReadLocal(root, path, workspace.MaxMarker)
	if err != nil || json.Unmarshal(data, &r) != nil || math.IsNaN(r.Value) || r.Value < 0 {
		return recordedReading{}, false
	}
	return r, true
}

// RecordedReading is the session's newest hook reading, as a Pressure
// whose source says where and when it was taken.
func RecordedReading(w *workspace.Workspace, session string) (Pressure, bool) {
	r, ok := readReading(w.Root, readingPath(w.Root, session))
	if !ok {
		return Pressure{}, false
	}
	age := w.Env.Now().Sub(r.At).Round(time.Second)
	if age < 0 {
		age = 0
	}
	return Pressure{Value: r.Value, Known: true, Tokens: r.Tokens, Window: r.Window,
		Source: "hook reading from " + r.Source + ", " + age.String() + " ago"}, true
}

// anyReading reports whether any hook ever recorded a reading here (the
// directory stays when a compaction forgets a session's reading): only a
// workspace without one has no pressure source at all.
func anyReading(w *workspace.Workspace) bool {
	fi, err := os.Lstat(w.LocalPath(readingsDir))
	return err == nil && fi.IsDir()
}

// ReadingMaxAge is how old the session's newest hook reading may be for
// a checkpoint without a reading of its own (`ctxgit checkpoint`) to
// record it as its context usage (SPEC §8).
const ReadingMaxAge = 10 * time.Minute

// RecentUsage is the session's newest hook reading as a checkpoint's
// token usage, when it was taken at most ReadingMaxAge before the
// workspace clock (not after it) and its source is one SPEC §8 names.
func RecentUsage(w *workspace.Workspace, session string) (spec.TokenUsage, bool) {
	r, ok := readReading(w.Root, readingPath(w.Root, session))
	if !ok || r.Value > 10 {
		return spec.TokenUsage{}, false
	}
	if age := w.Env.Now().Sub(r.At); age < 0 || age > ReadingMaxAge {
		return spec.TokenUsage{}, false
	}
	switch r.Source {
	case "host", "transcript", "estimate":
	default:
		return spec.TokenUsage{}, false
	}
	return spec.TokenUsage{InputTokens: r.Tokens, ContextWindow: r.Window, Utilization: r.Value, Source: r.Source}, true
}
