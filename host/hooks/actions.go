package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/host/transcript"
	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/internal/tail"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// NudgeText tells the agent, as a fact and not an order, that the context is
// filling and what of its working state survives compaction
// (docs/cli.md#hook): hosts screen injected imperatives as possible prompt
// injection. Its arguments: the percentage, the configured plan path.
const NudgeText = "Context is %.0f%% full; compaction will soon drop older turns. What survives it is what ctxgit has saved: " +
	"the plan in %s (ctxgit plan mark N done), decisions (ctxgit decide \"…\" --why \"…\"), " +
	"the failure log (ctxgit fail \"…\") and the next action (ctxgit state set next_action \"…\")."

// NudgeTextNoPlan is NudgeText for a workspace without a plan file, where
// `ctxgit plan mark` has nothing to mark: every command the nudge names
// works as written. Its argument: the percentage.
const NudgeTextNoPlan = "Context is %.0f%% full; compaction will soon drop older turns. What survives it is what ctxgit has saved: " +
	"decisions (ctxgit decide \"…\" --why \"…\"), the failure log (ctxgit fail \"…\") and the next action (ctxgit state set next_action \"…\")."

// defaultWindow is the context window assumed when neither the host nor
// its transcript says (Claude's models' usual window).
const defaultWindow = 200_000

// hookState is a session's machine-local hook record.
type hookState struct {
	LastAutoTokens int64     `json:"last_auto_tokens,omitempty"`
	LastAutoAt     time.Time `json:"last_auto_at,omitzero"`
	Window         int64     `json:"window,omitempty"` // last window a host reported
	// StaleTokens is the transcript's reading when the last compaction
	// began: until the host writes the compaction into the transcript, its
	// tail still shows that reading, which must not count again.
	StaleTokens int64 `json:"stale_tokens,omitempty"`
	// CallMisses counts the tool calls in a row whose message the host
	// had not written within the wait (awaitCall); from
	// hookpath.MaxCallMisses on, tool calls stop waiting.
	CallMisses int `json:"call_misses,omitempty"`
}

// nudgeMarker is the flush nudge's per-session marker (docs/cli.md#hook).
type nudgeMarker struct {
	Timestamp time.Time `json:"timestamp"`
	UsedPct   float64   `json:"used_pct"`
	Flushed   bool      `json:"flushed"`
}

func nudgePath(root, session string) string   { return hookpath.NudgePath(root, session) }
func pendingPath(root, session string) string { return hookpath.PendingPath(root, session) }
func statePath(root, session string) string   { return hookpath.StatePath(root, session) }

// readJSON reads a marker or state file under root's .ctxgit/local/ by
// the file rule (workspace.ReadLocal): ok false when there is none, err
// when it is there but does not read (a link, a FIFO, bad JSON).
func readJSON(root, path string, v any) (ok bool, err error) {
	data, err := workspace.ReadLocal(root, path, workspace.MaxMarker)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	return true, json.Unmarshal(data, v)
}

// writeJSON writes a marker or state file under the call's .ctxgit/local/.
func (c *call) writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	root, err := c.root()
	if err != nil {
		return err
	}
	return workspace.WriteLocal(root, path, append(data, '\n'), 0o644)
}

// sessionStart injects recovery after compaction (source compact); on
// startup and resume, this session's own newest checkpoint ("Resumed") or
// another session's fresh one whose state is not older than the files on
// disk ("Previous session"), else a pointer of at most three lines
// (docs/cli.md#hook). Startup, resume and clear also record the session's base
// snapshot.
func (c *call) sessionStart() error {
	w, err := c.workspace()
	if err != nil {
		return err
	}
	c.recordSession(w.Root)
	// An env file ctxgit cannot use (a FIFO, a device) is logged, after
	// the session got its recovery and base checkpoint anyway.
	exportErr := c.exportSession()
	if keepsAnswer(c.Host) {
		return errors.Join(c.processStart(w), exportErr)
	}
	if c.p.Source != "compact" && c.p.Source != "clear" {
		if done, err := c.geminiStart(w); err != nil || done {
			return errors.Join(err, exportErr)
		}
	}
	if c.p.Source != "clear" && workspace.LocalExists(w.Root, pendingPath(w.Root, c.session)) {
		// A compaction's recovery waits (Codex compacts a resumed thread
		// before its SessionStart "resume", then fires SessionStart
		// "compact"; a Cursor release that drops postToolUse context
		// leaves it to the next start): it alone, from the compaction's
		// checkpoint, reaches the model, with no Resumed block and no
		// newer checkpoint beside it.
		return errors.Join(c.deliverPending(w), exportErr)
	}
	switch c.p.Source {
	case "compact":
		return errors.Join(c.deliverPending(w), exportErr)
	case "clear":
	case "resume", "fork":
		if err := c.resumeInjection(w); err != nil {
			return errors.Join(err, exportErr)
		}
	default:
		if err := c.startupInjection(w); err != nil {
			return errors.Join(err, exportErr)
		}
	}
	return errors.Join(c.deferCheckpoint(w, "session-start"), exportErr)
}

// startupInjection picks what a starting session sees of earlier work,
// after the onboarding card on its first start (docs/cli.md#hook), in one
// output: a host takes one answer per event.
func (c *call) startupInjection(w *workspace.Workspace) error {
	card := ""
	marker := localPath(w.Root, "onboarded", c.session)
	if w.Config.Recovery.Onboarding && !w.HasCheckpoints(c.session) && !workspace.LocalExists(w.Root, marker) {
		card = taskstate.OnboardingCard(w) + "\n"
	}
	session, title := c.session, workspace.ResumedTitle(c.session)
	var newest *workspace.Resolved
	if !w.HasCheckpoints(c.session) {
		var err error
		if newest, err = w.Newest(); err != nil {
			return err
		}
		if newest != nil {
			session, title = newest.Session, workspace.PreviousTitle(newest.Session, newest.Checkpoint.Meta.CreatedAt)
		}
	}
	injected := false
	if newest != nil && sameGoal(w, newest.Checkpoint) || newest == nil && card == "" && !c.resumesOwnEnd(w) {
		_, err := w.Recover(workspace.RecoverOptions{
			Session: session, SessionGiven: true, Status: taskstate.PeekStatus(w, session), Title: title, NotStaleAgainst: true,
			Emit: func(r *workspace.RecoverResult) error {
				injected = true
				return c.writeContext(card + r.Block)
			},
		})
		if err != nil && !errors.Is(err, spec.ErrNotFound) {
			return err
		}
	}
	text := card
	if !injected && newest != nil {
		text += pointerText(newest, w.ShortSession(newest.Session), w.Config.Paths.Plan)
	}
	if !injected && text != "" {
		if err := c.writeContext(strings.TrimRight(text, "\n") + "\n"); err != nil {
			return err
		}
	}
	if card != "" {
		// Shown: a session gets its card once.
		return workspace.WriteLocal(w.Root, marker, nil, 0o644)
	}
	return nil
}

// resumesOwnEnd reports whether this start resumes a conversation whose
// newest checkpoint its own SessionEnd took: everything in it happened in
// the conversation the host now resumes, so a Resumed block would only
// repeat it (seen with Codex 0.169: exec, then exec resume).
func (c *call) resumesOwnEnd(w *workspace.Workspace) bool {
	if c.p.Source != "resume" {
		return false
	}
	r, err := w.Resolve("", c.session)
	return err == nil && r.Checkpoint.Meta.Trigger == spec.TriggerSessionEnd
}

// sameGoal reports whether the workspace's plan has a goal and it is
// the one cp was taken under.
func sameGoal(w *workspace.Workspace, cp *spec.Checkpoint) bool {
	p := w.ReadState().Plan
	return p != nil && strings.TrimSpace(p.Goal) != "" && strings.TrimSpace(p.Goal) == strings.TrimSpace(string(cp.Plan.Goal))
}

// pointerText tells a brand-new session, in at most three lines, that
// earlier work exists and how to see it, without injecting it.
func pointerText(r *workspace.Resolved, session, plan string) string {
	name := session + ":" + r.Checkpoint.Meta.CheckpointID
	return "# Earlier work in this workspace (ctxgit)\n" +
		"Newest checkpoint: " + name + ", taken " + r.Checkpoint.Meta.CreatedAt.UTC().Format("2006-01-02 15:04 UTC") + "; not loaded here.\n" +
		"`ctxgit recover " + name + "` shows it; the plan is " + plan + ".\n"
}

// preCompact checkpoints before the host compacts, and leaves a marker so
// the next prompt event injects recovery where the host has no
// post-compaction event.
func (c *call) preCompact() error {
	w, err := c.compactionCheckpoint()
	if err != nil {
		return err
	}
	return workspace.WriteLocal(w.Root, pendingPath(w.Root, c.session), []byte(w.Now().Format(time.RFC3339)+"\n"), 0o644)
}

// compactionCheckpoint takes the checkpoint of a compaction about to
// happen, after the session's detached checkpoints in flight, and starts
// a new compaction cycle.
func (c *call) compactionCheckpoint() (*workspace.Workspace, error) {
	w, err := c.workspace()
	if err != nil {
		return nil, err
	}
	c.recordSession(w.Root)
	c.awaitJobs(w.Root, compactionJobWait)
	if _, err := w.Checkpoint(c.checkpointOptions(w, spec.TriggerCompaction, true)); err != nil {
		return nil, err
	}
	c.clearCycle(w.Root)
	c.dropAnswer(w.Root)
	return w, nil
}

// postCompact starts a new compaction cycle.
func (c *call) postCompact() error {
	root, err := c.root()
	if err != nil {
		return err
	}
	c.clearCycle(root)
	return nil
}

// clearCycle forgets the nudge and the auto-checkpoint baseline: after a
// compaction both start over.
func (c *call) clearCycle(root string) {
	workspace.RemoveLocal(root, nudgePath(root, c.session))
	workspace.RemoveLocal(root, compressPath(root, c.session))
	taskstate.ForgetReading(root, c.session)
	var st hookState
	ok, _ := readJSON(root, statePath(root, c.session), &st)
	stale := st.StaleTokens
	if format, known := transcriptFormat(c.Host); known && regularFile(c.p.TranscriptPath) {
		if u, found, err := transcript.TailUsage(c.p.TranscriptPath, format, tailBytes); err == nil && found {
			stale = u.Used()
		}
	}
	if ok || stale != st.StaleTokens {
		st.LastAutoTokens, st.StaleTokens = 0, stale
		c.writeJSON(statePath(root, c.session), st)
	}
}

// afterTool answers a tool call's end, the one event on every host but
// OpenClaw that can add text after the tool's result. After a compaction
// (a pending marker) on hosts with no post-compaction start (Cursor,
// Gemini CLI) it injects the recovery, in the same conversation; else it
// updates the gauge from the transcript's tail and delivers the flush
// nudge, once. With no marker of either kind and no transcript reader —
// nearly always — it costs finding the root and two stats.
func (c *call) afterTool() error {
	root, err := c.root()
	if err != nil {
		return err
	}
	if recovered, err := c.confirmCompression(root); err != nil || recovered {
		return err
	}
	if c.Host == "cursor" && !hookpath.CursorAfterToolContext(c.p.CursorVersion) {
		// This release drops postToolUse additional_context: whatever
		// ctxgit printed would be marked delivered and never reach the
		// model. The recovery stays pending for the next sessionStart.
		return nil
	}
	if recoversAfterTool(c.Host) && workspace.LocalExists(root, pendingPath(root, c.session)) {
		w, err := c.workspace()
		if err != nil {
			return err
		}
		return c.deliverPending(w)
	}
	if err := c.gaugeFromTranscript(); err != nil {
		return err
	}
	if err := c.gaugeFromPayload(); err != nil {
		return err
	}
	return c.deliverNudge(root)
}

// recoversAfterTool: hosts whose compaction is followed by no event that
// injects before the next tool result (docs/cli.md#hook).
func recoversAfterTool(host string) bool {
	return host == "cursor" || host == "gemini" || host == "copilot"
}

// deliverNudge writes an undelivered nudge marker's text in the host's
// after-tool shape and marks it delivered — after writing, so a host that
// stopped reading gets it on its next call rather than never. With no
// marker it costs one stat; only an undelivered one takes the lock.
func (c *call) deliverNudge(root string) error {
	path := nudgePath(root, c.session)
	if !workspace.LocalExists(root, path) {
		return nil
	}
	// Markers are written atomically: a read is the old or the new one.
	var m nudgeMarker
	if ok, err := readJSON(root, path, &m); !ok || err != nil {
		workspace.RemoveLocal(root, path) // gone, or damaged: no nudge rather than a wrong one
		return nil
	}
	if m.Flushed {
		return nil
	}
	w, unlock, err := c.lockedWorkspace()
	if err != nil {
		return err
	}
	defer unlock()
	// Again under the lock: a parallel call may have delivered it.
	if ok, err := readJSON(root, path, &m); !ok || err != nil || m.Flushed {
		return nil
	}
	if w.Now().Sub(m.Timestamp) > time.Duration(w.Config.Pressure.NudgeStale) {
		return workspace.RemoveLocal(root, path)
	}
	nudge := fmt.Sprintf(NudgeTextNoPlan, m.UsedPct)
	if taskstate.HasPlan(w) {
		nudge = fmt.Sprintf(NudgeText, m.UsedPct, w.Config.Paths.Plan)
	}
	if err := c.writeContext(nudge); err != nil {
		return err
	}
	m.Flushed = true
	return c.writeJSON(path, m)
}

// gaugeFromTranscript updates the gauge from the transcript's tail, where
// ctxgit has a reader for the host's transcript.
func (c *call) gaugeFromTranscript() error {
	format, ok := transcriptFormat(c.Host)
	if !ok || c.p.TranscriptPath == "" {
		return nil
	}
	r, st, err := c.awaitCall(format)
	if err != nil || !r.Known {
		return err
	}
	u := r.Usage
	if st.StaleTokens != 0 && u.Used() == st.StaleTokens {
		return nil // the reading the last compaction began at, not a new one
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	window := u.ContextWindow
	if window == 0 {
		window = st.knownWindow()
	}
	window = c.gaugeWindow(window)
	p := taskstate.Pressure{Value: float64(u.Used()) / float64(window), Known: true,
		Source: "transcript", Tokens: u.Used(), Window: window}
	if _, err = c.gaugeUpdate(w, p, &st); err != nil {
		return err
	}
	return c.noteCompressionDue(w.Root, p)
}

// tailBytes bounds how far back the gauge looks for usage.
const tailBytes = hookpath.TailBytes

// callWait bounds how long a tool call's hook waits for the host to write
// the message that called the tool, and callPoll is how often it looks
// (awaitCall). Claude Code queues its transcript lines and writes them
// every 100 ms (FLUSH_INTERVAL_MS in 2.1.332's bundled store), beside the
// hooks it runs: the wait ends as soon as the line is there.
const (
	callWait = time.Second
	callPoll = 10 * time.Millisecond
)

// awaitCall reads the transcript's tail for the gauge, and the session's
// hook record when the reading needs it (read once on the steady path,
// again only after a wait). On a tool call whose message the host may not
// have written yet (hookpath.AwaitedCall: Claude Code's PostToolUse runs
// before it, about one call in eight in `claude -p`, seen in the
// real-host tier), it waits for that message, at most callWait
// (Request.CallWait), so that the reading is the call's turn and the
// nudge it calls for goes out with this call's result: in a one-prompt
// `-p` run there is no next prompt to take it; Copilot CLI's postToolUse
// likewise, for its record's hook.start line (copilotMark). The tail is
// read again only when the file grew. A session whose waits keep ending without the
// message (hookpath.MaxCallMisses in a row) stops waiting; a tail that
// holds the call starts the count over. ctxgit-hook hands every call that
// would wait, or change the count, to ctxgit hook (hookpath.Steady).
func (c *call) awaitCall(format transcript.Format) (tail.Reading, hookState, error) {
	path := c.p.TranscriptPath
	call := hookpath.AwaitedCall(c.Host, c.Event, c.p.ToolUseID, c.p.AgentID)
	o := tail.Options{MaxBack: tailBytes, Call: call, Mark: c.copilotMark()}
	awaits := call != "" || o.Mark != ""
	read := func() (tail.Reading, error) {
		if !regularFile(path) {
			return tail.Reading{}, nil // not written yet (transcriptDue)
		}
		return transcript.TailReading(path, format, o)
	}
	var r tail.Reading
	var err error
	// The first look stats the file once: a regular file is read; one
	// that is not there yet is waited for by a call that awaits its
	// message; anything else (a device or a pipe would hang the hook) is
	// no transcript.
	switch fi, serr := os.Stat(path); {
	case serr == nil && fi.Mode().IsRegular():
		r, err = transcript.TailReading(path, format, o)
	case !awaits || !transcriptDue(path):
		return r, hookState{}, nil
	}
	if err != nil || !awaits && !r.Known {
		return r, hookState{}, err
	}
	st := c.readState()
	if !awaits {
		return r, st, nil
	}
	waited := hookpath.CallWaits(r.HoldsCall, st.CallMisses)
	if waited {
		wait := c.CallWait
		if wait <= 0 {
			wait = callWait
		}
		size := fileSize(path)
		for deadline := time.Now().Add(wait); !r.HoldsCall && time.Now().Before(deadline); {
			time.Sleep(callPoll)
			if n := fileSize(path); n != size {
				size = n
				if r, err = read(); err != nil {
					return r, st, err
				}
			}
		}
	}
	switch {
	case r.HoldsCall && st.CallMisses > 0 || !r.HoldsCall && waited:
		st, err = c.countCall(r.HoldsCall)
	case waited:
		// Time passed: a parallel hook may have written the record.
		st = c.readState()
	}
	return r, st, err
}

// transcriptDue reports whether a tool call that waits for its message
// (hookpath.AwaitedCall) or its record's mark (copilotMark) finds no
// transcript at path at all: Claude Code creates the file at its first
// write, which a fast `claude -p` run's first tool call can come before,
// and Copilot CLI 1.0.102 likewise its events.jsonl (both seen in the
// real-host tier with CI=true, where it happened in most runs). The call
// then waits for the file as for the message.
func transcriptDue(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// countCall records whether a wait for a tool call's message found it,
// and returns the hook record it wrote.
func (c *call) countCall(found bool) (hookState, error) {
	w, unlock, err := c.lockedWorkspace()
	if err != nil {
		return hookState{}, err
	}
	defer unlock()
	st := c.readState()
	if st.CallMisses++; found {
		st.CallMisses = 0
	}
	return st, c.writeJSON(statePath(w.Root, c.session), st)
}

// fileSize is the size of the file at path, -1 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// readState is the session's hook record, or a zero one.
func (c *call) readState() hookState {
	var st hookState
	if root, err := c.root(); err == nil {
		readJSON(root, statePath(root, c.session), &st)
	}
	return st
}

func (c *call) knownWindow(root string) int64 {
	var st hookState
	readJSON(root, statePath(root, c.session), &st)
	return st.knownWindow()
}

// knownWindow is the window the record holds, else the default.
func (st hookState) knownWindow() int64 {
	if st.Window > 0 {
		return st.Window
	}
	return defaultWindow
}

// promptSubmit injects a recovery still pending after a compaction: the
// fallback where the post-compaction start was missed (Claude Code,
// Codex), or the first prompt after a compaction no tool call followed
// (Gemini CLI); else a nudge a tool hook's reading missed (promptGauge).
func (c *call) promptSubmit() error {
	root, err := c.root()
	if err != nil {
		return err
	}
	c.recordSession(root)
	if done, err := c.geminiPrompt(root); err != nil || done {
		return err
	}
	if !workspace.LocalExists(root, pendingPath(root, c.session)) {
		return c.promptGauge(root)
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	return c.deliverPending(w)
}

// promptGauge takes a reading at a prompt and delivers a nudge still due:
// a tool hook can run before its host has written the turn's usage to the
// transcript (Claude Code's PostToolUse does), and the reading it missed
// is then taken here, before the next turn, rather than lost. Only hosts
// whose prompt event can inject, and whose transcript ctxgit reads. A
// reading at or past pressure.critical is left for the next tool event:
// the host runs its prompt hook before it compacts, so a nudge given here
// would reach the model beside the recovery, after the compaction it
// announces (Claude Code 2.1.332, docs/HOSTS.md, "The flush nudge").
func (c *call) promptGauge(root string) error {
	if _, ok := transcriptFormat(c.Host); !ok || !c.canInject() {
		return nil
	}
	if err := c.gaugeFromTranscript(); err != nil {
		return err
	}
	var m nudgeMarker
	if ok, err := readJSON(root, nudgePath(root, c.session), &m); !ok || err != nil || m.Flushed {
		return nil
	}
	w, err := c.workspace()
	if err != nil {
		return err
	}
	if m.UsedPct/100 >= w.Config.Pressure.Critical {
		return nil
	}
	return c.deliverNudge(root)
}

// deliverPending injects this session's recovery after a compaction and
// retires the pending marker: a new compaction cycle starts, so the nudge
// and the auto-checkpoint baseline start over too.
func (c *call) deliverPending(w *workspace.Workspace) error {
	c.clearCycle(w.Root)
	if err := c.recoverInto(w, false); err != nil {
		return err
	}
	// Delivered (or nothing to deliver): later events inject nothing.
	if err := workspace.RemoveLocal(w.Root, pendingPath(w.Root, c.session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// bootstrap gives OpenClaw's handler what the agent should see at its
// bootstrap: the recovery after a compaction (a pending marker from
// compact-before), else the answer kept from an earlier run of the session
// (keptAnswer), else what a starting session sees (startupInjection); with
// --write, CONTEXT_RECOVERY.md instead of stdout.
func (c *call) bootstrap() error {
	w, err := c.workspace()
	if err != nil {
		return err
	}
	c.recordSession(w.Root)
	c.rememberRoot(w.Root, w.Now())
	if err := c.recordWindow(w); err != nil {
		return err
	}
	if workspace.LocalExists(w.Root, pendingPath(w.Root, c.session)) {
		return c.keepAnswer(w, func() error { return c.deliverPending(w) })
	}
	if text, ok := c.keptAnswer(w); ok {
		return c.writeContext(text)
	}
	return c.keepAnswer(w, func() error { return c.startupInjection(w) })
}

// checkpointOptions fills a checkpoint from the host: its usage, and the
// transcript's thread, files, tools and compaction count (one more when
// the host is about to compact).
func (c *call) checkpointOptions(w *workspace.Workspace, trigger string, compacting bool) workspace.CheckpointOptions {
	o := workspace.CheckpointOptions{Session: c.session, Trigger: trigger, Host: c.Host}
	// estimated: the usage is OpenClaw's tokenCount, which for a
	// compaction it was not told the size of (`openclaw sessions
	// compact`) is its own estimate of the messages, far below what the
	// provider reported (seen: "context 0%" of 100k over a 1,000-token
	// prompt); the transcript's usage, the provider's, replaces it.
	estimated := false
	if p := c.p; p.TokenCount != nil && *p.TokenCount > 0 {
		// OpenClaw's count before compaction.
		// OpenClaw's handler passes the window from the config; else the
		// one its bootstrap recorded, else the default, so the header
		// never reads "context 0%" at 150k tokens.
		estimated = c.Host == "openclaw"
		window := c.knownWindow(w.Root)
		if p.ContextWindow != nil && *p.ContextWindow > 0 {
			window = *p.ContextWindow
		}
		o.Usage = spec.TokenUsage{InputTokens: *p.TokenCount, ContextWindow: window,
			Utilization: float64(*p.TokenCount) / float64(window), Source: "host"}
	} else if p.ContextTokens != nil && p.ContextWindowSize != nil && *p.ContextWindowSize > 0 {
		o.Usage = spec.TokenUsage{InputTokens: *p.ContextTokens, ContextWindow: *p.ContextWindowSize,
			Utilization: float64(*p.ContextTokens) / float64(*p.ContextWindowSize), Source: "host"}
	} else if p.ContextUsagePercent != nil {
		o.Usage = spec.TokenUsage{Utilization: *p.ContextUsagePercent / 100, Source: "host"}
	} else if u, ok := c.payloadUsage(func() int64 { return c.knownWindow(w.Root) }); ok {
		o.Usage = u
	}
	format, ok := transcriptFormat(c.Host)
	if !ok || !regularFile(c.p.TranscriptPath) {
		return o
	}
	// The saved reading lives under .ctxgit/local/transcripts/: with a
	// link on the way (the file rule, SPEC §3.4) the transcript is read
	// whole and nothing is saved.
	state := transcriptStatePath(w.Root, c.session)
	if workspace.MakeLocalDirs(w.Root, state) != nil {
		state = ""
	}
	s, err := transcript.ReadFileResume(c.p.TranscriptPath, format, transcript.ReadOptions{Root: w.Root, MaxExchanges: w.Config.Caps.Exchanges}, state)
	if err != nil {
		return o
	}
	n := s.Compactions
	if compacting {
		n++
	}
	o.CompactionCount = &n
	o.Thread = s.Thread
	o.FilesRead, o.FilesModified, o.FilesModifiedAt, o.ToolsUsed = s.FilesRead, s.FilesModified, s.FilesModifiedAt, s.ToolsUsed
	o.Interrupted, o.LastToolCall = s.Interrupted, s.LastToolCall
	o.ToolFailure = lastToolFailure(s)
	if (o.Usage.Source == "" || estimated) && s.UsageKnown {
		window := s.Usage.ContextWindow
		if window == 0 && c.p.ContextWindow != nil && *c.p.ContextWindow > 0 {
			window = *c.p.ContextWindow
		}
		if window == 0 {
			window = c.knownWindow(w.Root)
		}
		window = c.gaugeWindow(window)
		o.Usage = spec.TokenUsage{InputTokens: s.Usage.Used(), ContextWindow: window,
			Utilization: float64(s.Usage.Used()) / float64(window), Source: "transcript"}
	}
	return o
}

// gaugeUpdate applies the thresholds to a reading: the nudge marker from
// pressure.flush (once a cycle), an automatic checkpoint from
// pressure.auto_checkpoint when tokens grew by pressure.min_growth since
// the last one. It reports whether a checkpoint was taken. known is the
// session's hook record when the caller has read it already (else nil):
// it serves the decision without the lock, never the one under it.
func (c *call) gaugeUpdate(w *workspace.Workspace, p taskstate.Pressure, known *hookState) (bool, error) {
	if p.Tokens == 0 && p.Window > 0 {
		p.Tokens = int64(p.Value * float64(p.Window)) // a percentage-only reading
	}
	// The newest reading, for `ctxgit status` without --pressure
	// (docs/cli.md#status); lock-free: the file is the session's, replaced
	// atomically.
	if err := taskstate.RecordReading(w.Root, c.session, p, w.Now()); err != nil {
		return false, err
	}
	// Decide without the lock first: a status line refreshes every turn,
	// and most readings change nothing.
	pre := c.gaugeWork(w, p, known)
	if !pre.any() {
		return false, nil
	}
	var o workspace.CheckpointOptions
	if pre.checkpoint {
		// The transcript is the host's: read it before taking the lock.
		o = c.checkpointOptions(w, spec.TriggerAuto80, false)
		o.Usage = spec.TokenUsage{InputTokens: p.Tokens, ContextWindow: p.Window, Utilization: p.Value, Source: p.Source}
	}
	// Parallel hooks read the same markers: decide again and record under
	// the lock, so a cycle gets one nudge and each 5% one checkpoint.
	lock, err := w.Lock()
	if err != nil {
		return false, err
	}
	defer lock.Unlock()
	todo := c.gaugeWork(w, p, nil)
	if todo.nudge {
		if err := c.writeJSON(nudgePath(w.Root, c.session), nudgeMarker{Timestamp: w.Now(), UsedPct: p.Value * 100}); err != nil {
			return false, err
		}
	}
	st := todo.state
	if todo.window {
		st.Window = p.Window
		if err := c.writeJSON(statePath(w.Root, c.session), st); err != nil {
			return false, err
		}
	}
	if !todo.checkpoint || o.Trigger == "" {
		return false, nil
	}
	if _, err := w.CheckpointHeld(o); err != nil {
		return false, err
	}
	st.LastAutoTokens, st.LastAutoAt = p.Tokens, w.Now()
	return true, c.writeJSON(statePath(w.Root, c.session), st)
}

// gaugeTodo is what a reading calls for.
type gaugeTodo struct {
	nudge, window, checkpoint bool
	state                     hookState
}

func (t gaugeTodo) any() bool { return t.nudge || t.window || t.checkpoint }

// gaugeWork reads the markers and says what a reading calls for: a nudge
// marker from pressure.flush when there is none (or a stale undelivered
// one), the window recorded when it changed, and an automatic checkpoint
// from pressure.auto_checkpoint when tokens grew by pressure.min_growth.
// The hook record is known when not nil, else read.
func (c *call) gaugeWork(w *workspace.Workspace, p taskstate.Pressure, known *hookState) gaugeTodo {
	t := w.Config.Pressure
	var todo gaugeTodo
	if p.Value >= t.Flush {
		var m nudgeMarker
		ok, err := readJSON(w.Root, nudgePath(w.Root, c.session), &m)
		stale := ok && err == nil && !m.Flushed && w.Now().Sub(m.Timestamp) > time.Duration(t.NudgeStale)
		todo.nudge = !ok || err != nil || stale
	}
	if known != nil {
		todo.state = *known
	} else {
		readJSON(w.Root, statePath(w.Root, c.session), &todo.state)
	}
	todo.window = p.Window > 0 && p.Window != todo.state.Window
	last := todo.state.LastAutoTokens
	todo.checkpoint = p.Value >= t.AutoCheckpoint && p.Tokens > 0 &&
		(last == 0 || float64(p.Tokens) >= float64(last)*(1+t.MinGrowth))
	return todo
}

// regularFile reports whether path is a regular file: a transcript path
// naming a device or a pipe would hang the hook.
func regularFile(path string) bool {
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// recordSession notes the host's session as the workspace's current one,
// best effort: the agent's own ctxgit calls, which name no session, then
// land in it (SPEC §6.3).
func (c *call) recordSession(root string) {
	workspace.RecordCurrentSession(root, c.session, c.Host, c.Env.Now())
}

// hookGOOS is the OS whose shells read the env file; a variable so tests
// can ask for another.
var hookGOOS = runtime.GOOS

// envFileReadable reports whether the shells host spawns on goos read an
// `export NAME='…'` line. Codex on Windows runs PowerShell (or cmd), which
// cannot: there the agent's calls find the session through CODEX_THREAD_ID
// and the current-session record instead (SPEC §6.3). Claude Code runs
// its Bash tool in Git Bash on Windows too.
func envFileReadable(host, goos string) bool {
	return host != "codex" || goos != "windows"
}

// exportSession appends `export CTXGIT_SESSION=…` to the file a host names
// for a SessionStart hook's environment (Claude Code's CLAUDE_ENV_FILE,
// Codex's CODEX_ENV_FILE or CLAUDE_ENV_FILE): the session's later shell
// tool calls source it, so the agent's own ctxgit calls land in this
// session. Not again while the file's last such export is this session.
func (c *call) exportSession() error {
	if c.session == spec.DefaultSession || (c.Host != "claude-code" && c.Host != "codex") {
		return nil
	}
	path := c.Env.Getenv("CLAUDE_ENV_FILE")
	if c.Host == "codex" {
		if p := c.Env.Getenv("CODEX_ENV_FILE"); p != "" {
			path = p
		}
	}
	if path == "" || !envFileReadable(c.Host, hookGOOS) {
		return nil
	}
	line := "export CTXGIT_SESSION='" + c.session + "'"
	// The file is the host's: read only as a regular file, only its
	// tail, and only its last export counts — start A, start B, resume A
	// with one shared file must leave A current (issue 24 item 5).
	data, err := regfile.ReadTailFollowing(path, envFileTail)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, err)
	}
	if lastSessionExport(data) == line {
		return nil
	}
	f, err := regfile.OpenAppendFollowing(path, 0o600)
	if err != nil {
		return err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line = "\n" + line // never glued to a line the host left open
	}
	line += "\n"
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// envFileTail is how much of a host's env file exportSession reads: the
// last export is near the end, and the file is not ctxgit's to bound.
const envFileTail = 64 << 10

// lastSessionExport is the last `export CTXGIT_SESSION=` line of data,
// without its newline; "" when there is none.
func lastSessionExport(data []byte) string {
	lines := strings.Split(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimRight(lines[i], "\r"); strings.HasPrefix(l, "export CTXGIT_SESSION=") {
			return l
		}
	}
	return ""
}
