package taskstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// Level is how full the context is (docs/cli.md#status).
type Level string

// Pressure levels, in rising order.
const (
	LevelOK       Level = "ok"
	LevelWarning  Level = "warning"
	LevelCompress Level = "compress"
	LevelCritical Level = "critical"
)

// Pressure is the context utilisation as known to the caller.
type Pressure struct {
	Value  float64 // 0..1 (may exceed 1 when a host over-reports)
	Known  bool
	Source string // flag, tokens, env, host, …
	Tokens int64  // when known
	Window int64  // when known
}

// ParsePressure reads "0.72", ".72" or "72%".
func ParsePressure(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	bad := err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0
	if !pct && v > 1.5 {
		bad = true // 72 is ambiguous: 72% is written with its sign
	}
	if bad {
		return 0, spec.Usage("pressure %q: want a fraction such as 0.72 or a percentage such as 72%%", s)
	}
	if pct {
		v /= 100
	}
	return v, nil
}

// TokenPressure is tokens over window.
func TokenPressure(tokens, window int64) (Pressure, error) {
	if tokens < 0 || window <= 0 {
		return Pressure{}, spec.Usage("--tokens and --window need a positive window and non-negative tokens")
	}
	return Pressure{Value: float64(tokens) / float64(window), Known: true, Source: "tokens", Tokens: tokens, Window: window}, nil
}

// Level maps a utilisation onto the configured thresholds.
func LevelOf(w *workspace.Workspace, p float64) Level {
	t := w.Config.Pressure
	switch {
	case p >= t.Critical:
		return LevelCritical
	case p >= t.Compress:
		return LevelCompress
	case p >= t.Warning:
		return LevelWarning
	}
	return LevelOK
}

// runtimeState is a session's machine-local runtime record
// (docs/cli.md#resume): the turn count, a pending summary requirement, and a
// persisted halt.
type runtimeState struct {
	Turns         int        `json:"turns"`
	CompressSince *time.Time `json:"compress_since,omitempty"`
	Halt          *Halt      `json:"halt,omitempty"`
}

// Halt records why and when a session stopped for its context limit.
type Halt struct {
	At         time.Time `json:"at"`
	Pressure   float64   `json:"pressure"`
	Source     string    `json:"source"`
	Checkpoint string    `json:"checkpoint,omitempty"`
	Summary    string    `json:"summary,omitempty"`
}

func runtimePath(w *workspace.Workspace, session string) string {
	return w.LocalPath("runtime/" + session + ".json")
}

// loadRuntime reads a session's record; a damaged one is reported by the
// caller and replaced, except that a halt is never forgotten: an unreadable
// record counts as halted, the safe side.
func loadRuntime(w *workspace.Workspace, session string) (*runtimeState, error) {
	data, err := workspace.ReadLocal(w.Root, runtimePath(w, session), workspace.MaxMarker)
	if errors.Is(err, fs.ErrNotExist) {
		return &runtimeState{}, nil
	}
	rt := &runtimeState{}
	if err == nil {
		err = json.Unmarshal(data, rt)
	}
	if err != nil {
		return &runtimeState{Turns: 1, Halt: &Halt{At: w.Now(), Source: "unreadable runtime record"}},
			fmt.Errorf("%s/runtime/%s.json: unreadable (%v): treated as halted", spec.LocalDir, session, err)
	}
	return rt, nil
}

func saveRuntime(w *workspace.Workspace, session string, rt *runtimeState) error {
	data, err := json.MarshalIndent(rt, "", "  ")
	if err != nil {
		return err
	}
	return workspace.WriteLocal(w.Root, runtimePath(w, session), append(data, '\n'), 0o644)
}

// LevelAction is what a level asks of the agent.
func LevelAction(l Level) string {
	switch l {
	case LevelWarning:
		return "keep state current"
	case LevelCompress:
		return "summarize now"
	case LevelCritical:
		return "checkpoint and stop"
	}
	return "ok"
}

// GaugeLine is `[Context: 81% | 162k/200k tokens | summarize now]`; note,
// when given, replaces the level's action ("Checkpoint saved").
func GaugeLine(p Pressure, l Level, note string) string {
	parts := []string{fmt.Sprintf("Context: %.0f%%", p.Value*100)}
	if p.Window > 0 && p.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%s/%s tokens", kTokens(p.Tokens), kTokens(p.Window)))
	}
	if note == "" {
		note = LevelAction(l)
	}
	parts = append(parts, note)
	return "[" + strings.Join(parts, " | ") + "]"
}

func kTokens(n int64) string {
	if n >= 1000 {
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprint(n)
}
