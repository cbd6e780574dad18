package hooks

import (
	"os"
	"strings"
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
// A manual PreCompress (/compress) is a compression Gemini forces: it
// checkpoints at once, as pre-compact does, and marks the compression
// manual. Its recovery counts as delivered only in a request that
// survives it, so it waits until the chat recording shows the compressed
// chat (transcript.GeminiCompressedSince), and then for a BeforeAgent
// whose prompt a resumed chat keeps (geminiKeepsPrompt): headless,
// `gemini -r latest -p "/compress"` sends "/compress" to the model as a
// prompt while the compression runs beside it (compressCommand.ts starts
// it without waiting), and the compressed chat that replaces the old one
// drops the turn under way; a resume (convertSessionToClientHistory)
// repeats every tool result, so a recovery in an AfterTool answer reaches
// the model twice after it, and leaves out a prompt that starts with a
// slash or with SessionStart's <hook_context>, the recovery with it.
// BeforeAgent puts its text after the prompt, in the same message, which
// a resume replays once (docs/HOSTS.md, "Gemini CLI").

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
	// Manual is a /compress: its checkpoint is taken, its recovery waits
	// for the compression in the recording after Offset (the recording's
	// size when it began) and for a prompt a resume keeps.
	Manual bool  `json:"manual,omitempty"`
	Offset int64 `json:"offset,omitempty"`
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
		return c.manualCompress()
	}
	root, err := c.root()
	if err != nil {
		return err
	}
	path := compressPath(root, c.session)
	var m compressMarker
	if ok, err := readJSON(root, path, &m); !ok || err != nil || m.Candidate || m.Manual {
		return nil // nothing due (nearly always), marked already, or a /compress's
	}
	m.Candidate, m.At = true, c.Env.Now()
	if regularFile(c.p.TranscriptPath) {
		m.Transcript = c.p.TranscriptPath
	}
	return c.writeJSON(path, m)
}

// manualCompress answers PreCompress trigger manual (/compress): the
// compaction checkpoint now, and the marker its recovery waits on.
func (c *call) manualCompress() error {
	w, err := c.compactionCheckpoint()
	if err != nil {
		return err
	}
	m := compressMarker{Manual: true, At: c.Env.Now()}
	if regularFile(c.p.TranscriptPath) {
		m.Transcript, m.Offset = c.p.TranscriptPath, fileSize(c.p.TranscriptPath)
	}
	return c.writeJSON(compressPath(w.Root, c.session), m)
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
	ok, err := readJSON(root, path, &m)
	if err != nil {
		workspace.RemoveLocal(root, path) // damaged: no compression rather than a wrong one
	}
	if !ok || err != nil {
		return false, nil
	}
	if m.Manual {
		return c.manualRecovery(root, path, m)
	}
	if !m.Candidate {
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
	w, release, err := c.claimCompression(path)
	if w == nil || err != nil {
		return false, err
	}
	defer release()
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

// manualRecovery settles a /compress's recovery (manualCompress). Until
// the chat recording shows the compressed chat it waits (a SessionStart
// finds the run that started it over: no compression is coming, and the
// marker goes). Then a BeforeAgent whose prompt a resume keeps delivers
// it, after that prompt, and reports true; a SessionStart reports true
// with nothing said, holding it for the BeforeAgent that follows (its
// text, put before the prompt, would make a resume leave the prompt out);
// an AfterTool, or a prompt a resume drops, leaves it waiting.
func (c *call) manualRecovery(root, path string, m compressMarker) (bool, error) {
	rec := m.Transcript
	if rec == "" || !regularFile(rec) {
		rec = c.p.TranscriptPath
	}
	// With no recording to tell by, as in Gemini's older one-document
	// layout, the compression is taken as done.
	compressed := true
	if regularFile(rec) {
		var err error
		if compressed, err = transcript.GeminiCompressedSince(rec, m.Offset); err != nil {
			return false, err
		}
	}
	switch {
	case !compressed && c.Event == "session-start":
		return false, workspace.RemoveLocal(root, path)
	case !compressed:
		return false, nil // under way, in this run
	case c.Event == "session-start":
		return true, nil
	case c.Event != "before-agent" || !geminiKeepsPrompt(c.p.Prompt):
		return false, nil
	}
	w, release, err := c.claimCompression(path)
	if w == nil || err != nil {
		return false, err
	}
	defer release()
	workspace.RemoveLocal(w.Root, pendingPath(w.Root, c.session))
	return true, c.recoverInto(w, false)
}

// claimCompression takes a compression marker for this call alone (Gemini
// runs parallel tool calls' AfterTool hooks at once, and one compression
// is one checkpoint and one recovery), then opens the workspace and
// records the session; release drops the claimed marker. w is nil when
// another hook took it.
func (c *call) claimCompression(path string) (w *workspace.Workspace, release func(), err error) {
	claimed := path + ".claimed"
	if err := os.Rename(path, claimed); err != nil {
		return nil, nil, nil
	}
	release = func() { os.Remove(claimed) }
	if w, err = c.workspace(); err != nil {
		release()
		return nil, nil, err
	}
	c.recordSession(w.Root)
	return w, release, nil
}

// geminiKeepsPrompt reports whether a resumed Gemini CLI chat keeps a user
// message that starts with prompt: convertSessionToClientHistory (0.61.0,
// isIgnoredUserContent) leaves out one that is empty or starts with "/",
// "?", "<session_context>" or "<hook_context>".
func geminiKeepsPrompt(prompt string) bool {
	t := strings.TrimSpace(prompt)
	if t == "" {
		return false
	}
	for _, p := range []string{"/", "?", "<session_context>", "<hook_context>"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}
