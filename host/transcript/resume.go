package transcript

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/internal/tail"
	"github.com/ctxgit/ctxgit/spec"
)

// A transcript only grows while its session runs, and hooks read it again
// and again (every checkpoint of the session): ReadFileResume saves the
// reader's state with the offset it reached, and the next read starts
// there. The saved offset is trusted only while the file is the same file
// grown at its end: its size is at least the offset, and a fingerprint of
// its first bytes and of the bytes just before the offset is unchanged. A
// file rewritten, truncated or replaced is read afresh (docs/design.md,
// "Transcripts").

// resumeVersion changes whenever the saved layout or a reader's rules
// change: a reading saved by another version is not resumed.
const resumeVersion = 3

// printBytes is how much of the start of a file, and of the bytes before
// the offset, the fingerprint covers.
const printBytes = 4 << 10

// ReadFileResume is ReadFile that resumes from the reading saved in
// statePath and saves the new one there (atomically; a failed save only
// costs the next read its head start). A saved reading that does not
// match (another file, format, root or cap; a file not grown from where it
// was read) is ignored. Gemini CLI's one-document layout, rewritten
// whole on every change, is always read whole.
func ReadFileResume(path string, f Format, o ReadOptions, statePath string) (*Summary, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, &spec.FileError{Path: path, Err: err}
	}
	abs, _ := filepath.Abs(path)
	o.MaxExchanges = exchangesCap(o)
	st := newState(f, o)
	h, err := newHandler(f, st)
	if err != nil {
		return nil, err
	}
	key := savedKey{Version: resumeVersion, Path: abs, Format: f, Root: st.root, Max: o.MaxExchanges}

	var start int64
	lines := 0
	if sv := loadSaved(statePath, key, fh, fi.Size()); sv != nil && sv.restore(st, h) {
		start, lines = sv.Offset, sv.Lines
	} else {
		st = newState(f, o)
		h, _ = newHandler(f, st)
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		return nil, &spec.FileError{Path: path, Err: err}
	}
	var r io.Reader = fh
	if f == Gemini && start == 0 {
		br := bufio.NewReaderSize(fh, 256<<10)
		if tail.LegacyDocument(br) {
			s, line, err := readDocument(br, st, h)
			if err != nil {
				return nil, &spec.FileError{Path: path, Line: line, Err: err}
			}
			return s, nil
		}
		r = br
	}
	lr := newLineReader(r, maxLineBytes)
	lr.n, lr.off = lines, start
	st.s.Lines = lines
	var saved []byte
	done := false
	save := func(off int64, lines int) { saved, done = snapshot(key, off, lines, st, h, fh), true }
	if line, err := scan(lr, st, h, save); err != nil {
		return nil, &spec.FileError{Path: path, Line: line, Err: err}
	}
	if !done {
		save(lr.off, lr.n)
	}
	h.finish()
	s := st.summary()
	if saved != nil && statePath != "" {
		if err := os.MkdirAll(filepath.Dir(statePath), 0o755); err == nil {
			atomicfile.WriteNoSync(statePath, saved, 0o644)
		}
	}
	return s, nil
}

func exchangesCap(o ReadOptions) int {
	if o.MaxExchanges <= 0 {
		return defaultExchanges
	}
	return o.MaxExchanges
}

// savedKey says which reading a saved state belongs to.
type savedKey struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	Format  Format `json:"format"`
	Root    string `json:"root"`
	Max     int    `json:"max_exchanges"`
}

// savedReading is a reader's state at Offset (after line Lines).
type savedReading struct {
	savedKey
	Offset int64  `json:"offset"`
	Lines  int    `json:"lines"`
	Print  string `json:"print"`

	State  savedState   `json:"state"`
	Claude *savedClaude `json:"claude,omitempty"`
	Codex  *savedCodex  `json:"codex,omitempty"`
	Gemini *savedGemini `json:"gemini,omitempty"`
}

// fingerprint hashes the first printBytes of the file and the printBytes
// before off.
func fingerprint(r io.ReaderAt, off int64) (string, bool) {
	h := sha256.New()
	var lenb [8]byte
	binary.LittleEndian.PutUint64(lenb[:], uint64(off))
	h.Write(lenb[:])
	buf := make([]byte, printBytes)
	for _, at := range []int64{0, max(off-printBytes, 0)} {
		n := min(int64(printBytes), off-at)
		if n <= 0 {
			continue
		}
		if _, err := r.ReadAt(buf[:n], at); err != nil {
			return "", false
		}
		h.Write(buf[:n])
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// maxSaved bounds the read of a saved reading: the state of a reading of
// a large transcript, far below this.
const maxSaved = 64 << 20

// loadSaved reads the saved reading at statePath if it is key's and the
// file (of size size) is the one it read, grown at its end; else nil.
func loadSaved(statePath string, key savedKey, f io.ReaderAt, size int64) *savedReading {
	if statePath == "" {
		return nil
	}
	// Under .ctxgit/local/, where a repository may have committed a link
	// to /dev/zero or a FIFO: read as a regular file, bounded (SPEC §3.4).
	data, err := regfile.ReadFile(statePath, maxSaved)
	if err != nil {
		return nil
	}
	var sv savedReading
	if json.Unmarshal(data, &sv) != nil || sv.savedKey != key || sv.Offset <= 0 || sv.Offset > size || sv.Lines < 0 {
		return nil
	}
	if p, ok := fingerprint(f, sv.Offset); !ok || p != sv.Print {
		return nil
	}
	return &sv
}

// snapshot encodes the state of a reading that reached off, after line
// lines; nil when there is nothing to resume from.
func snapshot(key savedKey, off int64, lines int, st *state, h lineHandler, f io.ReaderAt) []byte {
	if off <= 0 {
		return nil
	}
	p, ok := fingerprint(f, off)
	if !ok {
		return nil
	}
	sv := savedReading{savedKey: key, Offset: off, Lines: lines, Print: p, State: saveState(st)}
	switch r := h.(type) {
	case *claudeReader:
		sv.Claude = r.save()
	case *codexReader:
		sv.Codex = r.save()
	case *geminiReader:
		sv.Gemini = r.save()
	}
	data, err := json.Marshal(&sv)
	if err != nil {
		return nil
	}
	return data
}

// restore loads the saved state into st and h; false if it does not fit.
func (sv *savedReading) restore(st *state, h lineHandler) bool {
	sv.State.load(st)
	switch r := h.(type) {
	case *claudeReader:
		return sv.Claude != nil && r.load(sv.Claude) == nil
	case *codexReader:
		return sv.Codex != nil && r.load(sv.Codex)
	case *geminiReader:
		return sv.Gemini != nil && r.load(sv.Gemini)
	}
	return true
}

// savedState is the state every format shares.
type savedState struct {
	Summary  Summary              `json:"summary"`
	Cwd      string               `json:"cwd"`
	Read     []string             `json:"read"`
	Mod      []string             `json:"mod"`
	ModAt    map[string]string    `json:"mod_at"`
	Tools    []string             `json:"tools"`
	Open     map[string]savedCall `json:"open"`
	NoID     []string             `json:"no_id"`
	LastCall string               `json:"last_call"`
	LastOpen bool                 `json:"last_open"`
	Mark     bool                 `json:"mark"`
	Failures []ToolFailure        `json:"failures"`
	NFail    int                  `json:"nfail"`
	Thread   savedThread          `json:"thread"`
	Plan     *spec.HostPlan       `json:"plan,omitempty"`
	TaskIDs  []string             `json:"task_ids"`
	NextTask int                  `json:"next_task"`
}

type savedCall struct {
	Name   string   `json:"name"`
	Target string   `json:"target"`
	Search bool     `json:"search"`
	Writes []string `json:"writes"`
}

func saveState(st *state) savedState {
	sv := savedState{Summary: *st.s, Cwd: st.cwd, Read: st.read.list, Mod: st.mod.list, ModAt: st.modAt, Tools: st.tools.list,
		Open: map[string]savedCall{}, NoID: st.noID, LastCall: st.lastCall, LastOpen: st.lastOpen, Mark: st.mark,
		Failures: st.failures, NFail: st.nfail, Thread: saveThread(st.thread), Plan: st.plan, TaskIDs: st.taskIDs, NextTask: st.nextTask}
	for id, c := range st.open {
		sv.Open[id] = savedCall{Name: c.name, Target: c.target, Search: c.search, Writes: c.writes}
	}
	return sv
}

func (sv *savedState) load(st *state) {
	*st.s = sv.Summary
	st.cwd = sv.Cwd
	st.modAt = sv.ModAt
	for _, l := range []struct {
		set  *capSet
		list []string
	}{{&st.read, sv.Read}, {&st.mod, sv.Mod}, {&st.tools, sv.Tools}} {
		for _, v := range l.list {
			l.set.add(v)
		}
	}
	for id, c := range sv.Open {
		st.open[id] = openCall{name: c.Name, target: c.Target, search: c.Search, writes: c.Writes}
	}
	st.noID, st.lastCall, st.lastOpen, st.mark = sv.NoID, sv.LastCall, sv.LastOpen, sv.Mark
	st.failures, st.nfail = sv.Failures, sv.NFail
	if len(st.failures) > maxFailures {
		st.failures = st.failures[:maxFailures]
	}
	st.thread = sv.Thread.load(st.thread.max)
	st.plan, st.taskIDs, st.nextTask = sv.Plan, sv.TaskIDs, sv.NextTask
}

// savedThread is a threadBuilder.
type savedThread struct {
	N         int             `json:"n"`
	First     string          `json:"first"`
	Last      string          `json:"last"`
	FirstGist string          `json:"first_gist"`
	Latest    string          `json:"latest"`
	AsstID    string          `json:"asst_id"`
	AsstLen   int             `json:"asst_len"`
	AsstText  string          `json:"asst_text"`
	Long      []savedExchange `json:"long"`
	Prev      savedTurn       `json:"prev"`
	Cur       savedTurn       `json:"cur"`
}

type savedExchange struct {
	Seq  int    `json:"seq"`
	Role string `json:"role"`
	Gist string `json:"gist"`
}

type savedTurn struct {
	OK    bool   `json:"ok"`
	Seq   int    `json:"seq"`
	Gist  string `json:"gist"`
	Reply string `json:"reply"`
}

func saveTurn(t turn) savedTurn {
	return savedTurn{OK: t.ok, Seq: t.seq, Gist: t.gist, Reply: t.reply}
}

func (t savedTurn) load() turn { return turn{ok: t.OK, seq: t.Seq, gist: t.Gist, reply: t.Reply} }

func saveThread(t *threadBuilder) savedThread {
	sv := savedThread{N: t.n, First: t.first, Last: t.last, FirstGist: t.firstGist, Latest: t.latest, AsstID: t.asstID,
		AsstLen: t.asstLen, AsstText: string(t.asstText), Prev: saveTurn(t.prev), Cur: saveTurn(t.cur)}
	for _, e := range t.long {
		sv.Long = append(sv.Long, savedExchange{Seq: e.seq, Role: e.role, Gist: e.gist})
	}
	return sv
}

func (sv *savedThread) load(max int) *threadBuilder {
	t := &threadBuilder{max: max, n: sv.N, first: sv.First, last: sv.Last, firstGist: sv.FirstGist, latest: sv.Latest,
		asstID: sv.AsstID, asstLen: sv.AsstLen, asstText: []byte(sv.AsstText), prev: sv.Prev.load(), cur: sv.Cur.load()}
	for _, e := range sv.Long {
		t.long = append(t.long, exchange{seq: e.Seq, role: e.Role, gist: e.Gist})
	}
	return t
}

// savedMark is a promptMark.
type savedMark struct {
	Line   int          `json:"line"`
	Turns  int          `json:"turns"`
	Mark   bool         `json:"mark"`
	Thread *savedThread `json:"thread,omitempty"`
}

func saveMarks(ms []promptMark) []savedMark {
	out := make([]savedMark, 0, len(ms))
	for _, m := range ms {
		sm := savedMark{Line: m.line, Turns: m.turns, Mark: m.mark}
		if m.thread != nil {
			t := saveThread(m.thread)
			sm.Thread = &t
		}
		out = append(out, sm)
	}
	return out
}

func loadMarks(ms []savedMark, max int) []promptMark {
	out := make([]promptMark, 0, len(ms))
	for _, m := range ms {
		pm := promptMark{line: m.Line, turns: m.Turns, mark: m.Mark}
		if m.Thread != nil {
			pm.thread = m.Thread.load(max)
		}
		out = append(out, pm)
	}
	return out
}

// savedClaude is a claudeReader. LineOf packs the uuid table as pairs of
// a little-endian uint64 hash and int32 line: a few megabytes for the
// largest transcripts, decoded without a JSON map.
type savedClaude struct {
	Cwd    string      `json:"cwd_raw"`
	LineOf []byte      `json:"line_of"`
	Marks  []savedMark `json:"marks"`
	Queued []string    `json:"queued"`
}

func (c *claudeReader) save() *savedClaude {
	// Once the oldest prompt mark kept can no longer be rolled back to, a
	// parent older than it changes nothing (see prompt): those lines need
	// no entry, which keeps a long session's table to its last prompts.
	oldest := int32(0)
	if len(c.marks) == maxMarks && c.marks[0].thread == nil {
		oldest = int32(c.marks[0].line)
	}
	packed := make([]byte, 0, 12*len(c.lineOf))
	for k, line := range c.lineOf {
		if line < oldest {
			continue
		}
		packed = binary.LittleEndian.AppendUint64(packed, k)
		packed = binary.LittleEndian.AppendUint32(packed, uint32(line))
	}
	return &savedClaude{Cwd: string(c.cwdRaw), LineOf: packed, Marks: saveMarks(c.marks), Queued: c.queued}
}

func (c *claudeReader) load(sv *savedClaude) error {
	if len(sv.LineOf)%12 != 0 || len(sv.LineOf)/12 > maxLineRefs {
		return errors.New("bad uuid table")
	}
	c.cwdRaw = []byte(sv.Cwd)
	c.lineOf = make(map[uint64]int32, len(sv.LineOf)/12)
	for b := sv.LineOf; len(b) >= 12; b = b[12:] {
		c.lineOf[binary.LittleEndian.Uint64(b)] = int32(binary.LittleEndian.Uint32(b[8:]))
	}
	c.marks = loadMarks(sv.Marks, c.st.thread.max)
	c.queued = sv.Queued
	return nil
}

// savedCodex is a codexReader; the event-based thread is the state's.
type savedCodex struct {
	Items         savedThread `json:"items"`
	EvTurns       int         `json:"ev_turns"`
	ItTurns       int         `json:"it_turns"`
	MetaSeen      bool        `json:"meta_seen"`
	Copying       bool        `json:"copying"`
	CopiedPrompts int         `json:"copied_prompts"`
	// Window is the newest window a line reported: a token_usage_record
	// read after the resume takes it.
	Window int64 `json:"window,omitempty"`
}

func (c *codexReader) save() *savedCodex {
	return &savedCodex{Items: saveThread(c.items), EvTurns: c.evTurns, ItTurns: c.itTurns, MetaSeen: c.metaSeen, Copying: c.copying, CopiedPrompts: c.copiedPrompts, Window: c.window}
}

func (c *codexReader) load(sv *savedCodex) bool {
	c.ev = c.st.thread
	c.items = sv.Items.load(c.st.thread.max)
	c.evTurns, c.itTurns, c.metaSeen, c.copying, c.copiedPrompts, c.window = sv.EvTurns, sv.ItTurns, sv.MetaSeen, sv.Copying, sv.CopiedPrompts, sv.Window
	return true
}

// savedGemini is a geminiReader.
type savedGemini struct {
	Order  []string        `json:"order"`
	Known  map[string]int  `json:"known"`
	Texted map[string]bool `json:"texted"`
	Calls  map[string]bool `json:"calls"`
	Marks  []savedMark     `json:"marks"`
}

func (g *geminiReader) save() *savedGemini {
	return &savedGemini{Order: g.order, Known: g.known, Texted: g.texted, Calls: g.calls, Marks: saveMarks(g.marks)}
}

func (g *geminiReader) load(sv *savedGemini) bool {
	if sv.Known == nil || sv.Texted == nil || sv.Calls == nil {
		return false
	}
	g.order, g.known, g.texted, g.calls = sv.Order, sv.Known, sv.Texted, sv.Calls
	g.marks = loadMarks(sv.Marks, g.st.thread.max)
	return true
}
