package hooks

import (
	"os"
	"time"

	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// Gemini CLI fires PreCompress before every model request, before it
// checks whether the chat needs compressing (packages/core/src/context/
// chatCompressionService.ts, compress; google-gemini/gemini-cli#18083), so
// a PreCompress is not a compression. Gemini compresses on its own when
// the last request's prompt tokens reached half the model's window
// (transcript.GeminiCompressAt), and always on /compress (trigger manual).
//
// ctxgit follows it with one marker per session, .ctxgit/local/compress/
// SESSION.json (docs/HOSTS.md, "Gemini CLI"):
//
//   - a reading from the chat recording at or past compressDue of the
//     compression point writes it (due: a compression may come);
//   - an automatic PreCompress turns a due marker into a candidate, and
//     does nothing else: with no marker, it costs one failed open;
//   - the next event that can put text before the model (AfterTool,
//     BeforeAgent, SessionStart) confirms a candidate from the recording:
//     the prompt tokens fell below the marker's, so the chat was
//     compressed. Only then is the compaction checkpoint taken and the
//     recovery delivered, in that event's answer. A candidate the
//     recording does not confirm is dropped.
//
// A manual PreCompress is a compression (Gemini forces it): it checkpoints
// and leaves the recovery pending at once, as pre-compact does.

// compressDue is the share of the compression point from which a reading
// marks a compression as due: a little under it, because a reading is
// kept only when it moved by a percent (taskstate.RecordReading) and
// Gemini counts the prompt it is about to send, not the last one exactly.
const compressDue = 0.95

// compressDrop is how far the prompt tokens must fall below a candidate's
// to confirm it: a compression keeps about 30% of the history and a
// summary, far under this.
const compressDrop = 0.9

// compressMarker is a session's record of a due or candidate compression.
type compressMarker struct {
	Tokens     int64     `json:"tokens"` // the prompt tokens before it
	Window     int64     `json:"window"` // the gauge's window then
	At         time.Time `json:"at"`
	Candidate  bool      `json:"candidate,omitempty"`  // a PreCompress came after it
	Transcript string    `json:"transcript,omitempty"` // the chat recording then
}

func compressPath(root, session string) string {
	return localPath(root, "compress", session+".json")
}

// geminiWindow is the window Gemini's gauge divides by: the share of the
// model's window Gemini fills before it compresses, so that the gauge
// reads 100% at the compression and the nudge (pressure.flush) comes
// before it, not never.
func geminiWindow(window int64) int64 {
	if window <= 0 {
		window = transcript.GeminiWindow("")
	}
	return int64(float64(window) * transcript.GeminiCompressAt)
}

// gaugeWindow is the window a host's reading is measured against.
func (c *call) gaugeWindow(window int64) int64 {
	if c.Host == "gemini" {
		return geminiWindow(window)
	}
	return window
}

// preCompress answers Gemini's PreCompress: manual is a compression;
// automatic, a candidate at most.
func (c *call) preCompress() error {
	if c.p.Trigger == "manual" {
		return c.preCompact()
	}
	root, err := c.root()
	if err != nil {
		return err
	}
	path := compressPath(root, c.session)
	var m compressMarker
	if ok, err := readJSON(root, path, &m); !ok || err != nil || m.Candidate {
		return nil // nothing due (nearly always), or marked already
	}
	m.Candidate, m.At = true, c.Env.Now()
	if regularFile(c.p.TranscriptPath) {
		m.Transcript = c.p.TranscriptPath
	}
	return c.writeJSON(path, m)
}

// noteCompressionDue writes the due marker from a reading at or past
// compressDue of the compression point, once.
func (c *call) noteCompressionDue(root string, p taskstate.Pressure) error {
	if c.Host != "gemini" || p.Value < compressDue || p.Tokens <= 0 {
		return nil
	}
	path := compressPath(root, c.session)
	if workspace.LocalExists(root, path) {
		return nil
	}
	return c.writeJSON(path, compressMarker{Tokens: p.Tokens, Window: p.Window, At: c.Env.Now()})
}

// geminiStart answers the part of Gemini's SessionStart (startup, resume)
// that is Gemini's own: a compression the last run ended on, confirmed or
// manual (pending), is recovered here as a recovery, in place of what a
// starting session would see (Gemini has no SessionStart compact).
func (c *call) geminiStart(w *workspace.Workspace) (done bool, err error) {
	if c.Host != "gemini" {
		return false, nil
	}
	if done, err := c.confirmCompression(w.Root); err != nil || done {
		return done, err
	}
	if !workspace.LocalExists(w.Root, pendingPath(w.Root, c.session)) {
		return false, nil
	}
	return true, c.deliverPending(w)
}

// geminiPrompt answers the part of Gemini's BeforeAgent that is Gemini's
// own: a confirmed compression's recovery (done). The reading of the
// usage a turn that ended on text left after the last AfterTool, so a
// compression this prompt brings is seen coming, is promptGauge's, as on
// every host.
func (c *call) geminiPrompt(root string) (done bool, err error) {
	if c.Host != "gemini" {
		return false, nil
	}
	return c.confirmCompression(root)
}

// confirmCompression settles a candidate compression from the chat
// recording: when the prompt tokens fell, it takes the compaction
// checkpoint and delivers the recovery in this event's answer, and
// reports true; else it drops the candidate. With no candidate it costs
// one failed open.
func (c *call) confirmCompression(root string) (bool, error) {
	if c.Host != "gemini" {
		return false, nil
	}
	path := compressPath(root, c.session)
	var m compressMarker
	if ok, err := readJSON(root, path, &m); !ok || err != nil || !m.Candidate {
		if err != nil {
			workspace.RemoveLocal(root, path) // damaged: no compression rather than a wrong one
		}
		return false, nil
	}
	// SessionStart names a fresh recording on a resume: the one the
	// candidate saw holds what came after it.
	rec := m.Transcript
	if rec == "" || !regularFile(rec) {
		rec = c.p.TranscriptPath
	}
	if !regularFile(rec) {
		return false, nil // nothing to tell by yet: keep the candidate
	}
	u, known, err := transcript.TailUsage(rec, transcript.Gemini, tailBytes)
	if err != nil {
		return false, err
	}
	if !known || float64(u.Used()) >= float64(m.Tokens)*compressDrop {
		// Not compressed (or nothing answered since): a later reading
		// past the point marks it due again.
		return false, workspace.RemoveLocal(root, path)
	}
	// Claim it: Gemini runs parallel tool calls' AfterTool hooks at once,
	// and one compression is one checkpoint and one recovery.
	claimed := path + ".claimed"
	if err := os.Rename(path, claimed); err != nil {
		return false, nil // another hook took it
	}
	defer os.Remove(claimed)
	w, err := c.workspace()
	if err != nil {
		return false, err
	}
	c.recordSession(w.Root)
	if rec != c.p.TranscriptPath {
		c.p.TranscriptPath = rec
	}
	c.awaitJobs(w.Root, geminiJobWait)
	o := c.checkpointOptions(w, spec.TriggerCompaction, false)
	if m.Window > 0 {
		// The usage the compression started from, not what it left.
		o.Usage = spec.TokenUsage{InputTokens: m.Tokens, ContextWindow: m.Window,
			Utilization: float64(m.Tokens) / float64(m.Window), Source: "transcript"}
	}
	if _, err := w.Checkpoint(o); err != nil {
		return false, err
	}
	c.clearCycle(w.Root)
	// The pending marker of a manual compression, if one is left, is
	// served by this same delivery.
	workspace.RemoveLocal(w.Root, pendingPath(w.Root, c.session))
	return true, c.recoverInto(w, false)
}
