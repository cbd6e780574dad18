package hookpath

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/internal/tail"
)

// The gauge's steady state, for the hosts whose tool call reads the
// transcript: host/hooks gaugeFromTranscript and gaugeUpdate take a
// reading, record it (taskstate.RecordReading) and apply the config's
// thresholds. steadyReading decides, without the config's YAML, that a
// reading changes nothing; the thresholds come from GaugeFile, which
// `ctxgit hook` writes.

// GaugeName is the file under .ctxgit/local/ in which `ctxgit hook` keeps
// what ctxgit-hook needs of .ctxgit/config.yaml: the thresholds, and the
// size and modification time of the config they were read from. A config
// changed since (or no file yet) sends the call to `ctxgit hook`, which
// writes it again.
const GaugeName = "hookpath.json"

// GaugeConfig is GaugeFile's content.
type GaugeConfig struct {
	ConfigSize     int64   `json:"config_size"`
	ConfigModNanos int64   `json:"config_mod_ns"`
	Flush          float64 `json:"flush"`
	AutoCheckpoint float64 `json:"auto_checkpoint"`
	MinGrowth      float64 `json:"min_growth"`
}

// GaugeFile is the path of the workspace's GaugeConfig.
func GaugeFile(root string) string { return LocalPath(root, GaugeName) }

// ConfigStamp is the size and modification time GaugeConfig records of
// the workspace's config.
func ConfigStamp(root string) (size, modNanos int64, err error) {
	fi, err := os.Stat(filepath.Join(root, DirName, ConfigName))
	if err != nil {
		return 0, 0, err
	}
	return fi.Size(), fi.ModTime().UnixNano(), nil
}

// ReadGaugeConfig reads the workspace's GaugeConfig; ok is false when
// there is none, it does not parse, or the config changed since.
func ReadGaugeConfig(root string) (GaugeConfig, bool) {
	var g GaugeConfig
	data, err := regfile.ReadFile(GaugeFile(root), maxMarker)
	if err != nil || json.Unmarshal(data, &g) != nil {
		return GaugeConfig{}, false
	}
	size, mod, err := ConfigStamp(root)
	if err != nil || size != g.ConfigSize || mod != g.ConfigModNanos {
		return GaugeConfig{}, false
	}
	return g, true
}

// TailBytes is how far back the gauge looks for usage in a transcript's
// tail (host/hooks reads as far).
const TailBytes = 4 << 20

// defaultWindow is host/hooks' defaultWindow.
const defaultWindow = 200_000

// compressDue is host/hooks' compressDue (Gemini CLI).
const compressDue = 0.95

// hookState is what steadyReading reads of host/hooks' hookState.
type hookState struct {
	LastAutoTokens int64 `json:"last_auto_tokens,omitempty"`
	Window         int64 `json:"window,omitempty"`
	StaleTokens    int64 `json:"stale_tokens,omitempty"`
	CallMisses     int   `json:"call_misses,omitempty"`
}

// MaxCallMisses is how many waits in a row for a tool call's message may
// end without it before a session's tool calls stop waiting (host/hooks
// awaitCall): a host that writes the message only after the hook returns
// must not cost every call the whole wait. A wait that finds it, or a tail
// that holds it at once, starts the count over.
const MaxCallMisses = 3

// CallWaits reports whether a tool call waits for its message (host/hooks
// awaitCall): the transcript's tail does not hold it (holds) and the
// session's waits have not missed MaxCallMisses times in a row (misses).
// steadyReading answers by the same rule.
func CallWaits(holds bool, misses int) bool { return !holds && misses < MaxCallMisses }

// AwaitedCall is the tool call whose message a tool-call hook reads the
// transcript for (tail.Options.Call): Claude Code's PostToolUse can run
// before the host has written the message that called the tool, with the
// turn's usage, and its tool_use_id tells whether it has. "" when the
// event is no such hook, the id is not one a transcript holds verbatim,
// or the call is a subagent's (agent_id: its messages go to the
// subagent's own transcript, never to this one).
func AwaitedCall(host, event, toolUseID, agentID string) string {
	if host != "claude-code" || event != "post-tool-use" || agentID != "" || toolUseID == "" || len(toolUseID) > 200 {
		return ""
	}
	for i := 0; i < len(toolUseID); i++ {
		if c := toolUseID[i]; !alnum(c) && c != '_' && c != '-' {
			return ""
		}
	}
	return toolUseID
}

// StatePath is session's hook record (host/hooks statePath).
func StatePath(root, session string) string { return LocalPath(root, "hooks", session+".json") }

// ReadingPath is session's newest reading (taskstate readingPath).
func ReadingPath(root, session string) string { return LocalPath(root, "readings", session+".json") }

// maxMarker bounds the read of a marker: a line or two of JSON that ctxgit
// wrote (workspace.MaxMarker).
const maxMarker = 64 << 10

// ReadJSON reads a marker as a regular file within maxMarker, never
// following a link in its place or blocking on a FIFO (internal/regfile):
// ok false when there is none, err when it is there but does not read.
func ReadJSON(path string, v any) (ok bool, err error) {
	data, err := regfile.ReadFile(path, maxMarker)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(data, v)
}

// steadyReading reports whether the gauge's part of a tool call changes
// nothing: no reading in the transcript's tail, the reading the last
// compaction began at, or one that is within a percent and a minute of
// the recorded one and crosses no threshold (flush with its nudge not
// yet given, auto_checkpoint by min_growth, a new window, Gemini CLI's
// compression point).
func steadyReading(host, root, session, transcript, call string, now time.Time) bool {
	if transcript == "" {
		return true
	}
	fi, err := os.Stat(transcript)
	if errors.Is(err, fs.ErrNotExist) && call != "" {
		// Not written yet: ctxgit hook waits for it as for the call's
		// message (host/hooks transcriptDue), unless the session's waits
		// keep missing.
		var st hookState
		_, err := ReadJSON(StatePath(root, session), &st)
		return err == nil && !CallWaits(false, st.CallMisses)
	}
	if err != nil || !fi.Mode().IsRegular() {
		return true // ctxgit hook reads no reading from it either
	}
	r, err := tail.File(transcript, host, tail.Options{MaxBack: TailBytes, Call: call})
	if err != nil {
		return false // the older Gemini layout, or an error: ctxgit hook reads it
	}
	var st hookState
	if _, err := ReadJSON(StatePath(root, session), &st); err != nil {
		return false
	}
	if call != "" && (r.HoldsCall && st.CallMisses > 0 || CallWaits(r.HoldsCall, st.CallMisses)) {
		return false // ctxgit hook waits for the call's message, or counts it found
	}
	if !r.Known {
		return true
	}
	u := r.Usage
	used := u.Used()
	if st.StaleTokens != 0 && used == st.StaleTokens {
		return true
	}
	g, ok := ReadGaugeConfig(root)
	if !ok {
		return false
	}
	window := u.ContextWindow
	if window == 0 {
		window = defaultWindow
		if st.Window > 0 {
			window = st.Window
		}
	}
	if host == "gemini" {
		if window <= 0 {
			window = tail.GeminiWindow("")
		}
		window = int64(float64(window) * tail.GeminiCompressAt)
	}
	if window <= 0 {
		return false
	}
	value := float64(used) / float64(window)
	if !recorded(root, session, value, now) {
		return false
	}
	if value >= g.Flush && !exists(NudgePath(root, session)) {
		return false // the nudge marker is due
	}
	if window != st.Window {
		return false // the window is recorded
	}
	last := st.LastAutoTokens
	if value >= g.AutoCheckpoint && used > 0 && (last == 0 || float64(used) >= float64(last)*(1+g.MinGrowth)) {
		return false // an automatic checkpoint
	}
	if host == "gemini" && value >= compressDue {
		return false // the compression comes due
	}
	return true
}

// recorded reports whether taskstate.RecordReading would keep the
// recorded reading rather than write this one: within a percent of it
// and less than a minute newer.
func recorded(root, session string, value float64, now time.Time) bool {
	var r struct {
		Value float64   `json:"value"`
		At    time.Time `json:"at"`
	}
	ok, err := ReadJSON(ReadingPath(root, session), &r)
	if !ok || err != nil || math.IsNaN(r.Value) || r.Value < 0 || math.IsNaN(value) {
		return false
	}
	return math.Abs(r.Value-value) < 0.01 && now.Sub(r.At) < time.Minute && !now.Before(r.At)
}
