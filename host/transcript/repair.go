package transcript

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/proc"
	"github.com/ctxgit/ctxgit/spec"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// RepairOptions tune Repair.
type RepairOptions struct {
	// DryRun reports what would change and writes nothing (it takes no
	// lock and so is not refused by one).
	DryRun bool
	// Now is the clock (default time.Now) for backup names, synthetic
	// entries' timestamps and judging other processes' lock ages.
	Now func() time.Time
	// PID names the backup (default os.Getpid()).
	PID int
}

// RepairReport says what Repair changed (or, on a dry run, would change).
type RepairReport struct {
	Path string `json:"path"`
	// Backup is the copy of the original, "" on a dry run or when nothing
	// changed.
	Backup string `json:"backup"`
	// DroppedUnparseable are the line numbers of lines that were not one
	// JSON object in UTF-8.
	DroppedUnparseable []int `json:"dropped_unparseable"`
	// The tool-pairing repairs, each listing call ids ("line N" where the
	// id itself is missing).
	SyntheticResults       []string `json:"synthetic_results"`        // calls without a result, given a synthetic error result
	DroppedOrphans         []string `json:"dropped_orphans"`          // results of no call in reach
	DroppedDuplicates      []string `json:"dropped_duplicates"`       // results after the first for the same call
	Moved                  []string `json:"moved"`                    // results moved back next to their call
	DroppedIncompleteCalls []string `json:"dropped_incomplete_calls"` // calls with a missing id or name
	Changed                bool     `json:"changed"`
}

// Lock rules (HOSTS.md "OpenClaw": `<file>.lock` holding {pid, createdAt},
// stale when the pid is dead or the hold exceeds its maximum).
const maxLockHold = 30 * time.Minute

// syntheticText is the content of an inserted result; like OpenClaw's, it
// says what happened and who did it.
const syntheticText = "[ctxgit] missing tool result in session history; inserted synthetic error result for transcript repair."

// Repair applies OpenClaw's transcript repair (docs/HOSTS.md, "Transcripts",
// HOSTS.md "OpenClaw"): it drops unparseable lines, then repairs tool pairing:
// a call without a result gets a synthetic error result, orphaned results are
// dropped, of duplicate results the first is kept, a mis-ordered result is
// moved next to its call, and incomplete calls (missing id or name) are
// dropped. Then it backs the original up to `<file>.bak-<pid>-<UTC timestamp>`
// and replaces the file atomically.
//
// Pairing repair works for OpenClaw and Claude Code transcripts; Codex
// rollouts only lose their unparseable lines. Lines that need no change
// are written back byte for byte, and the entries' parent links (OpenClaw
// parentId, Claude Code parentUuid) are rewired around dropped, moved and
// inserted entries so the host still walks one unbroken conversation.
//
// It refuses, with an error naming the lock, while `<file>.lock` holds
// {pid, createdAt} of a live process younger than 30 minutes; it holds
// that lock itself while it replaces the file.
func Repair(path string, o RepairOptions) (*RepairReport, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	pid := o.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	rep := &RepairReport{Path: path}
	if _, err := os.Stat(path); err != nil {
		return nil, err // before the lock: no lock file beside a missing file
	}
	if !o.DryRun {
		unlock, err := takeLock(path+".lock", now())
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	// Read under the lock, so that no OpenClaw write slips in between.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := repairBytes(orig, now(), rep)
	if err != nil {
		return nil, &spec.FileError{Path: path, Err: err}
	}
	if !rep.Changed || o.DryRun {
		return rep, nil
	}
	backup, err := writeBackup(path, pid, now(), orig, fi.Mode().Perm())
	if err != nil {
		return nil, err
	}
	// Claude Code appends without taking any lock: if the file moved on
	// while it was being repaired, replacing it would lose those lines.
	if fi2, err := os.Stat(path); err != nil || fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		os.Remove(backup)
		return nil, &spec.FileError{Path: path, Err: spec.Conflict("the transcript changed while it was being repaired; try again")}
	}
	if err := atomicfile.Write(path, out, fi.Mode().Perm()); err != nil {
		return nil, err
	}
	rep.Backup = backup
	return rep, nil
}

// writeBackup copies the original next to it, never over an older backup.
func writeBackup(path string, pid int, now time.Time, data []byte, perm fs.FileMode) (string, error) {
	base := fmt.Sprintf("%s.bak-%d-%s", path, pid, now.UTC().Format("20060102T150405Z"))
	return atomicfile.WriteNew(atomicfile.NumberedName(base), data, perm)
}

// lockFile is OpenClaw's session lock.
type lockFile struct {
	PID       int             `json:"pid"`
	CreatedAt json.RawMessage `json:"createdAt"`
}

// lockHolder describes the live holder of the lock at path, or returns ""
// when there is no lock or it is stale; data is what the lock file held. A
// lock that cannot be read as {pid, createdAt} may be one being written: it
// counts as held while its file is younger than the maximum hold.
func lockHolder(path string, now time.Time) (holder string, data []byte, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	var l lockFile
	if json.Unmarshal(data, &l) != nil || l.PID <= 0 {
		if now.Sub(fi.ModTime()) < maxLockHold {
			return "an unreadable lock written " + fi.ModTime().UTC().Format(time.RFC3339), data, nil
		}
		return "", data, nil
	}
	created, ok := lockTime(l.CreatedAt)
	if !ok {
		created = fi.ModTime()
	}
	if now.Sub(created) >= maxLockHold || !proc.Alive(l.PID) {
		return "", data, nil
	}
	return fmt.Sprintf("process %d since %s", l.PID, created.UTC().Format(time.RFC3339)), data, nil
}

// lockTime reads createdAt as an ISO time or as milliseconds since the epoch.
func lockTime(raw json.RawMessage) (time.Time, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, true
		}
		return time.Time{}, false
	}
	var ms float64
	if json.Unmarshal(raw, &ms) == nil && ms > 0 {
		return time.UnixMilli(int64(ms)), true
	}
	return time.Time{}, false
}

// takeLock refuses a live lock, replaces a stale one, and returns the
// function that releases it (only if it is still ours). now judges other
// locks' age; ours carries the real time, since other processes judge it
// by their own clocks.
func takeLock(path string, now time.Time) (func(), error) {
	mine, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "createdAt": time.Now().UTC().Format("2006-01-02T15:04:05.000Z")})
	for attempt := 0; ; attempt++ {
		holder, stale, err := lockHolder(path, now)
		if err != nil {
			return nil, err
		}
		if holder != "" {
			return nil, &spec.FileError{Path: path, Err: spec.Conflict("the session is locked by %s; try again when it is released", holder)}
		}
		if stale != nil {
			// Remove the stale lock only if it is still the one judged.
			if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, stale) {
				os.Remove(path)
			}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, err
		}
		_, werr := f.Write(mine)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return nil, werr
		}
		return func() {
			if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, mine) {
				os.Remove(path)
			}
		}, nil
	}
}

// entryKind is the role a line plays in tool pairing.
type entryKind uint8

const (
	kOther     entryKind = iota // not a conversation message: transparent
	kAssistant                  // an assistant message (may carry calls)
	kResult                     // a message carrying tool results
	kMessage                    // any other message: ends a call's results
)

type call struct {
	id, name string
	block    int
}

type result struct {
	id    string
	block int // index in blocks; -1 when the message itself is the result
}

// entry is one parseable line during repair.
type entry struct {
	n    int // original line number; 0 for a synthetic entry
	raw  []byte
	kind entryKind

	group   string // the message id grouping Claude Code assistant lines
	noSynth bool   // an OpenClaw assistant turn that errored or was aborted
	msg     []byte // raw message
	blocks  [][]byte
	calls   []call
	results []result
	drop    map[int]bool // blocks to drop

	id, parent string
	hasParent  bool // the line has a parent link (even null)
	parentNull bool
	dropped    bool
	moved      bool
	inBlock    bool // moved or synthetic: linked explicitly
}

// format-specific names.
type dialect struct {
	idKey, parentKey string
}

var dialects = map[Format]dialect{
	ClaudeCode: {idKey: "uuid", parentKey: "parentUuid"},
	OpenClaw:   {idKey: "id", parentKey: "parentId"},
}

// repairBytes repairs a transcript in memory, filling rep.
func repairBytes(data []byte, now time.Time, rep *RepairReport) ([]byte, error) {
	var entries []*entry
	format := Format("")
	n := 0
	for line := range bytes.Lines(data) {
		n++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !jsonscan.ValidLine(line) {
			rep.DroppedUnparseable = append(rep.DroppedUnparseable, n)
			continue
		}
		if format == "" {
			format = detectLine(line)
		}
		entries = append(entries, &entry{n: n, raw: line})
	}
	if format == "" && detectDocument(bytes.TrimSpace(data)) == Gemini {
		// Gemini CLI's older layout is one document over many lines:
		// lines that do not stand alone are not damage.
		return data, nil
	}
	if len(entries) == 0 && len(rep.DroppedUnparseable) > 0 {
		return nil, spec.Invalid("no line of the transcript is parseable; left as it is")
	}
	if format == "" && len(entries) > 0 {
		// Nothing says which host wrote it: dropping its "bad" lines could
		// destroy a file that is no transcript at all.
		return nil, spec.Invalid("%s; left as it is", NotATranscript)
	}
	if d, ok := dialects[format]; ok {
		r := &repairer{f: format, d: d, now: now, rep: rep, ids: map[string]bool{}}
		entries = r.run(entries)
	}
	rep.Changed = len(rep.DroppedUnparseable) > 0 || len(rep.SyntheticResults) > 0 || len(rep.DroppedOrphans) > 0 ||
		len(rep.DroppedDuplicates) > 0 || len(rep.Moved) > 0 || len(rep.DroppedIncompleteCalls) > 0
	if !rep.Changed {
		// Blank lines alone are no damage worth a rewrite.
		return data, nil
	}
	var out bytes.Buffer
	out.Grow(len(data))
	for _, e := range entries {
		out.Write(e.raw)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

type repairer struct {
	f   Format
	d   dialect
	now time.Time
	rep *RepairReport
	ids map[string]bool
}

// callRef names a call in reports: its id, or its line when it has none.
func callRef(id string, line int) string {
	if strings.TrimSpace(id) == "" {
		return "line " + strconv.Itoa(line)
	}
	return id
}

func (r *repairer) parse(e *entry) {
	var typ, msg, side, id, parent []byte
	for key, val := range jsonscan.EachMember(e.raw) {
		switch string(key) {
		case "type":
			typ = val
		case "message":
			msg = val
		case "isSidechain":
			side = val
		case r.d.idKey:
			id = val
		case r.d.parentKey:
			parent = val
		}
	}
	e.id = jsonscan.StrOr(id)
	if e.id != "" {
		r.ids[e.id] = true
	}
	if parent != nil {
		e.hasParent = true
		e.parent = jsonscan.StrOr(parent)
		e.parentNull = !jsonscan.IsString(parent)
	}
	e.msg = msg
	if r.f == ClaudeCode {
		if jsonscan.IsTrue(side) {
			return // a subagent's line: its pairing is its own business
		}
		switch jsonscan.StrOr(typ) {
		case "assistant":
			e.kind = kAssistant
			e.group = jsonscan.StrOr(jsonscan.Field(msg, "id"))
			r.blocks(e)
		case "user":
			e.kind = kMessage
			r.blocks(e)
			if len(e.results) > 0 {
				e.kind = kResult
			}
		}
		return
	}
	if jsonscan.StrOr(typ) != "message" {
		return
	}
	switch jsonscan.StrOr(jsonscan.Field(msg, "role")) {
	case "assistant":
		e.kind = kAssistant
		stop := jsonscan.StrOr(jsonscan.Field(msg, "stopReason"))
		e.noSynth = stop == "error" || stop == "aborted"
		r.blocks(e)
	case "toolResult":
		e.kind = kResult
		e.results = []result{{id: jsonscan.StrOr(jsonscan.Field(msg, "toolCallId")), block: -1}}
	default:
		e.kind = kMessage
	}
}

// blocks splits the message content into blocks and finds the calls
// (assistant) or results (Claude Code user) among them.
func (r *repairer) blocks(e *entry) {
	content := jsonscan.Field(e.msg, "content")
	for b := range jsonscan.EachElement(content) {
		i := len(e.blocks)
		e.blocks = append(e.blocks, b)
		t := jsonscan.StrOr(jsonscan.Field(b, "type"))
		switch {
		case e.kind == kAssistant && (t == "tool_use" || r.f == OpenClaw && openclawCallTypes[t]):
			e.calls = append(e.calls, call{id: jsonscan.StrOr(jsonscan.Field(b, "id")), name: jsonscan.StrOr(jsonscan.Field(b, "name")), block: i})
		case e.kind != kAssistant && t == "tool_result":
			e.results = append(e.results, result{id: jsonscan.StrOr(jsonscan.Field(b, "tool_use_id")), block: i})
		}
	}
}

func (r *repairer) run(entries []*entry) []*entry {
	for _, e := range entries {
		r.parse(e)
	}
	// Incomplete calls first, as OpenClaw does: they can never be paired.
	for _, e := range entries {
		if e.kind != kAssistant {
			continue
		}
		kept := e.calls[:0]
		for _, c := range e.calls {
			if strings.TrimSpace(c.id) == "" || strings.TrimSpace(c.name) == "" {
				r.rep.DroppedIncompleteCalls = append(r.rep.DroppedIncompleteCalls, callRef(c.id, e.n))
				r.dropBlock(e, c.block)
				if e.dropped {
					// Gone before pairing starts, as in OpenClaw: it no
					// longer ends the previous message's results.
					e.kind = kOther
				}
				continue
			}
			kept = append(kept, c)
		}
		e.calls = kept
	}

	var out []*entry
	seen := map[string]bool{} // results kept so far, by call id
	for i := 0; i < len(entries); {
		e := entries[i]
		if e.kind == kResult {
			// A result outside any call's reach.
			for _, res := range e.results {
				r.dropResult(e, res, seen[res.id])
			}
		}
		if e.kind != kAssistant || e.noSynth || !r.groupHasCalls(entries, i) {
			out = append(out, e)
			i++
			continue
		}
		j := r.spanEnd(entries, i)
		out = r.span(entries[i:j], seen, out)
		i = j
	}
	out = r.relink(out)
	kept := out[:0]
	for _, e := range out {
		if !e.dropped {
			kept = append(kept, e)
		}
	}
	return kept
}

// sameGroup reports whether b continues a's assistant message: Claude Code
// writes one line per content block, all with the same message id.
func (r *repairer) sameGroup(a, b *entry) bool {
	return r.f == ClaudeCode && a.group != "" && a.group == b.group
}

func (r *repairer) groupHasCalls(entries []*entry, i int) bool {
	for k := i; k < len(entries); k++ {
		e := entries[k]
		if e.kind != kAssistant {
			continue
		}
		if k > i && !r.sameGroup(entries[i], e) {
			break
		}
		if len(e.calls) > 0 {
			return true
		}
	}
	return false
}

// spanEnd is the index of the next assistant message after the one at i.
func (r *repairer) spanEnd(entries []*entry, i int) int {
	for k := i + 1; k < len(entries); k++ {
		if entries[k].kind == kAssistant && !r.sameGroup(entries[i], entries[k]) {
			return k
		}
	}
	return len(entries)
}

// span repairs the results of one assistant message, whose entries (and
// those up to the next assistant message) are s, appending to out.
func (r *repairer) span(s []*entry, seen map[string]bool, out []*entry) []*entry {
	head := s[0]
	var calls []call
	callAt := map[string]int{}
	lastGroup := 0
	for k, e := range s {
		if e.kind == kAssistant && (k == 0 || r.sameGroup(head, e)) {
			lastGroup = k
			for _, c := range e.calls {
				if _, dup := callAt[c.id]; !dup {
					callAt[c.id] = k
					calls = append(calls, c)
				}
			}
		}
	}
	// Results belong between their call and the first message after the
	// assistant's last line; they are inserted or moved there.
	insertAt := len(s)
	for k := lastGroup + 1; k < len(s); k++ {
		if s[k].kind == kMessage {
			insertAt = k
			break
		}
	}
	have := map[string]bool{}
	var moved []*entry
	for k, e := range s {
		if e.kind != kResult {
			continue
		}
		move := false
		for _, res := range e.results {
			at, mine := callAt[res.id]
			switch {
			case !mine || seen[res.id] || have[res.id]:
				r.dropResult(e, res, seen[res.id] || have[res.id])
			default:
				have[res.id] = true
				if k > insertAt || k < at {
					move = true
					r.rep.Moved = append(r.rep.Moved, res.id)
				}
			}
		}
		if move && !e.dropped {
			e.moved, e.inBlock = true, true
			moved = append(moved, e)
		}
	}
	var synth []*entry
	for _, c := range calls {
		if !have[c.id] {
			r.rep.SyntheticResults = append(r.rep.SyntheticResults, c.id)
			synth = append(synth, r.synthetic(s[callAt[c.id]], c))
			have[c.id] = true
		}
	}
	for id := range have {
		seen[id] = true
	}
	block := append(moved, synth...)
	for k, e := range s {
		if k == insertAt {
			out = append(out, block...)
			block = nil
		}
		if !e.moved {
			out = append(out, e)
		}
	}
	return append(out, block...)
}

// dropResult removes one result; dup tells a duplicate from an orphan.
func (r *repairer) dropResult(e *entry, res result, dup bool) {
	ref := callRef(res.id, e.n)
	if dup {
		r.rep.DroppedDuplicates = append(r.rep.DroppedDuplicates, ref)
	} else {
		r.rep.DroppedOrphans = append(r.rep.DroppedOrphans, ref)
	}
	if res.block < 0 {
		e.dropped = true
		return
	}
	r.dropBlock(e, res.block)
}

// dropBlock removes one content block; a message left with no content is
// dropped whole.
func (r *repairer) dropBlock(e *entry, i int) {
	if e.drop == nil {
		e.drop = map[int]bool{}
	}
	e.drop[i] = true
	if len(e.drop) == len(e.blocks) {
		e.dropped = true
		return
	}
	var content bytes.Buffer
	content.WriteByte('[')
	first := true
	for k, b := range e.blocks {
		if e.drop[k] {
			continue
		}
		if !first {
			content.WriteByte(',')
		}
		first = false
		content.Write(b)
	}
	content.WriteByte(']')
	e.msg = setMember(e.msg, "content", content.Bytes())
	e.raw = setMember(e.raw, "message", e.msg)
}

// synthetic makes the error result for call c of the assistant entry a.
func (r *repairer) synthetic(a *entry, c call) *entry {
	ts := r.now.UTC().Format("2006-01-02T15:04:05.000Z")
	var b bytes.Buffer
	e := &entry{kind: kResult, inBlock: true, hasParent: a.hasParent}
	if r.f == OpenClaw {
		e.id = r.newID(8)
		b.WriteString(`{"type":"message","id":` + spec.CompactJSON(e.id))
		if a.hasParent {
			b.WriteString(`,"parentId":null`)
		}
		b.WriteString(`,"timestamp":` + spec.CompactJSON(ts))
		b.WriteString(`,"message":{"role":"toolResult","toolCallId":` + spec.CompactJSON(c.id) + `,"toolName":` + spec.CompactJSON(c.name))
		b.WriteString(`,"content":[{"type":"text","text":` + spec.CompactJSON(syntheticText) + `}],"isError":true,"timestamp":`)
		b.WriteString(strconv.FormatInt(r.now.UnixMilli(), 10) + `}}`)
	} else {
		e.id = r.newUUID()
		b.WriteString(`{"parentUuid":null,"isSidechain":false`)
		// Carry the session's identity over from the call, so the line
		// looks like the host's own.
		for _, k := range []string{"userType", "cwd", "sessionId", "version", "gitBranch", "slug"} {
			if v := jsonscan.Field(a.raw, k); v != nil {
				b.WriteString(`,` + spec.CompactJSON(k) + `:`)
				b.Write(v)
			}
		}
		b.WriteString(`,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":` + spec.CompactJSON(c.id))
		b.WriteString(`,"content":` + spec.CompactJSON(syntheticText) + `,"is_error":true}]}`)
		b.WriteString(`,"uuid":` + spec.CompactJSON(e.id) + `,"timestamp":` + spec.CompactJSON(ts) + `}`)
		e.hasParent = true
	}
	e.raw = b.Bytes()
	return e
}

func (r *repairer) newID(n int) string {
	for {
		buf := make([]byte, (n+1)/2)
		rand.Read(buf)
		id := hex.EncodeToString(buf)[:n]
		if !r.ids[id] {
			r.ids[id] = true
			return id
		}
	}
}

func (r *repairer) newUUID() string {
	for {
		var u [16]byte
		rand.Read(u[:])
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		h := hex.EncodeToString(u[:])
		id := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		if !r.ids[id] {
			r.ids[id] = true
			return id
		}
	}
}

// relink rewires parent links around dropped, moved and inserted entries.
// The host rebuilds the conversation by walking parent links back from the
// newest entry, so an entry moved without relinking would be skipped and an
// inserted one never seen.
func (r *repairer) relink(out []*entry) []*entry {
	// A dropped entry's children, and a moved entry's children left behind,
	// now hang from its old parent.
	alias := map[string]*entry{}
	for _, e := range out {
		if (e.dropped || e.moved) && e.id != "" {
			alias[e.id] = e
		}
	}
	resolve := func(p string, null bool) (string, bool) {
		for range len(alias) + 1 {
			a, ok := alias[p]
			if !ok || null {
				break
			}
			p, null = a.parent, a.parentNull || !a.hasParent
		}
		return p, null
	}
	for _, e := range out {
		if e.dropped || e.inBlock || !e.hasParent || e.parentNull {
			continue
		}
		if p, null := resolve(e.parent, false); p != e.parent || null {
			r.setParent(e, p, null)
		}
	}
	// Each run of moved and synthetic entries hangs from the entry before
	// it, and the first entry after it that hung there now hangs from the
	// run's last entry.
	var anchor *entry
	for k := 0; k < len(out); k++ {
		e := out[k]
		if e.dropped {
			continue
		}
		if !e.inBlock {
			// Only an entry that is itself linked can anchor (OpenClaw's
			// session header has an id but no parentId: it is not a node).
			if e.id != "" && e.hasParent {
				anchor = e
			}
			continue
		}
		prev := anchor
		last := k
		for ; last < len(out) && (out[last].inBlock || out[last].dropped); last++ {
			b := out[last]
			if b.dropped {
				continue
			}
			if b.hasParent {
				if prev != nil && prev.id != "" {
					r.setParent(b, prev.id, false)
				} else {
					r.setParent(b, "", true)
				}
			}
			prev = b
		}
		if anchor != nil && anchor.id != "" {
			// Look no further than the next message: beyond it, a link to
			// the anchor is a branch of its own.
			for m := last; m < len(out); m++ {
				n := out[m]
				if n.dropped {
					continue
				}
				if n.hasParent && !n.parentNull && n.parent == anchor.id {
					r.setParent(n, prev.id, false)
					break
				}
				if n.kind != kOther {
					break
				}
			}
		}
		anchor = prev
		k = last - 1
	}
	return out
}

func (r *repairer) setParent(e *entry, p string, null bool) {
	v := []byte("null")
	if !null {
		v = []byte(spec.CompactJSON(p))
	}
	e.parent, e.parentNull = p, null
	e.raw = setMember(e.raw, r.d.parentKey, v)
}

// setMember returns obj with member key set to the raw value val: replaced
// in place when present (the rest of the bytes untouched), appended
// otherwise.
func setMember(obj []byte, key string, val []byte) []byte {
	m := jsonscan.ObjectMembers(obj)
	start, end := -1, -1
	for k, v := range m.All() {
		if string(k) == key {
			end = m.End()
			start = end - len(v)
		}
	}
	if !m.Valid() {
		return obj
	}
	var b bytes.Buffer
	if start >= 0 {
		b.Write(obj[:start])
		b.Write(val)
		b.Write(obj[end:])
		return b.Bytes()
	}
	closeAt := bytes.LastIndexByte(obj[:m.End()], '}')
	b.Write(obj[:closeAt])
	if bytes.IndexByte(bytes.TrimSpace(obj[:closeAt]), ':') >= 0 {
		b.WriteByte(',')
	}
	b.WriteString(spec.CompactJSON(key) + ":")
	b.Write(val)
	b.Write(obj[closeAt:])
	return b.Bytes()
}
