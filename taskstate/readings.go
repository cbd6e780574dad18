package taskstate

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
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
	if err := workspace.WriteLocal(root, path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	appendHistory(root, historyPath(root, session), append(data, '\n'))
	return nil
}

// The reading history: every reading RecordReading keeps is also
// appended, one JSON line each, to SESSION.jsonl beside the newest, for
// the report's chart (docs/cli.md#report), which plots what was measured
// rather than a line between checkpoints. An append of one short line
// (O_APPEND) is whole even when hooks run at once. Past historyMaxBytes
// the file is replaced by its newer half, atomically: an append racing
// that replacement may be lost, never half-written.
const historyMaxBytes = 256 << 10

func historyPath(root, session string) string {
	return filepath.Join(root, filepath.FromSlash(spec.LocalDir), readingsDir, session+".jsonl")
}

// appendHistory appends line to the history at path, under the file
// rule for .ctxgit/local/ (SPEC §3.4). It is best effort: the history
// only draws the chart, and a hook must not fail for it.
func appendHistory(root, path string, line []byte) {
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return // never written through a link or into a FIFO
		}
		if fi.Size()+int64(len(line)) > historyMaxBytes {
			trimHistory(root, path)
		}
	}
	workspace.AppendLocal(root, path, line)
}

// trimHistory keeps the newer half of the history's lines.
func trimHistory(root, path string) {
	data, err := workspace.ReadLocalTail(root, path, historyMaxBytes)
	if err != nil {
		workspace.RemoveLocal(root, path) // unreadable: start over
		return
	}
	half := data[len(data)/2:]
	if i := bytes.IndexByte(half, '\n'); i >= 0 {
		half = half[i+1:]
	}
	workspace.WriteLocal(root, path, half, 0o644)
}

// HistoryReading is one reading of the history.
type HistoryReading struct {
	At     time.Time
	Value  float64
	Tokens int64
	Window int64
	Source string
}

// ReadingHistory is session's reading history, oldest first: every
// reading a hook or the status line recorded, lines that do not read as
// one left out. A workspace's local files are read as untrusted: as a
// regular file only, bounded.
func ReadingHistory(w *workspace.Workspace, session string) []HistoryReading {
	if spec.ValidateSessionKey(session) != nil {
		return nil
	}
	path := historyPath(w.Root, session)
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil // none, or a link or another file where it should be
	}
	// The tail, should the file have grown past its bound some other way.
	data, err := workspace.ReadLocalTail(w.Root, path, historyMaxBytes)
	if err != nil {
		return nil
	}
	var out []HistoryReading
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r recordedReading
		if len(line) == 0 || json.Unmarshal(line, &r) != nil || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) ||
			r.Value < 0 || r.Value > 10 || r.At.IsZero() {
			continue
		}
		out = append(out, HistoryReading{At: r.At.UTC(), Value: r.Value, Tokens: r.Tokens, Window: r.Window, Source: r.Source})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
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
