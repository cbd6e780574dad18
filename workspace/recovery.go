package workspace

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
)

// RecoveryHeading opens every recovery block (SPEC §10.1).
const RecoveryHeading = "# Post-Compaction Recovery"

// RenderOptions shape a recovery block.
type RenderOptions struct {
	Budget         int    // characters, the whole block included
	ChangedFiles   int    // list at most this many changed files
	CompactionWarn int    // warn when the compaction count exceeds this
	Status         string // a STATUS: signal line, when the caller has one
	// FullName names the checkpoint for `ctxgit show` ("cp_003" or
	// "session:cp_003").
	FullName string
	// Title replaces the heading line (RecoveryHeading) when the block is
	// not injected after a compaction: "# Resumed: …", "# Previous session
	// …" (SPEC §15.1).
	Title string
}

// requiredFieldCap bounds each always-kept field, so a pathological goal
// cannot crowd out the rest; a budget too small even for that shrinks it.
const requiredFieldCap = 400

// RenderRecovery renders a checkpoint as the recovery block, packed by
// priority within the budget (SPEC §10.2).
func RenderRecovery(cp *spec.Checkpoint, o RenderOptions) string {
	if o.FullName == "" {
		o.FullName = cp.Meta.CheckpointID
	}
	footer := fmt.Sprintf("\nFull checkpoint: `ctxgit show %s` (%s).\n", o.FullName, spec.CheckpointYAMLPath)
	var required string
	for fieldCap := requiredFieldCap; ; fieldCap -= 40 {
		required = renderRequired(cp, o, fieldCap)
		if runes(required)+runes(footer) <= o.Budget || fieldCap <= 40 {
			break
		}
	}
	b := &packer{budget: o.Budget - runes(footer)}
	b.buf.WriteString(required)
	b.used = runes(required)

	var ds []string
	for i := len(cp.Decisions) - 1; i >= 0; i-- {
		d := cp.Decisions[i]
		label := d.ID
		if d.When != "" {
			label += " " + d.When
		}
		ds = append(ds, "["+oneLine(label)+"] "+oneLine(string(d.What)))
	}
	b.section("## Decisions (newest first)", ds, "")
	b.section("## Open items", mapLines(cp.OpenItems), "")

	files := cp.Resources.SinceSession
	total := cp.Resources.SinceCount
	heading := "## Files changed since the session began"
	if total == 0 {
		files, total = cp.Resources.FilesChanged, cp.Resources.ChangedCount
		heading = "## Files changed since the previous checkpoint"
	}
	var fl []string
	for i, f := range files {
		if i == o.ChangedFiles {
			break
		}
		if f.From != "" {
			fl = append(fl, f.Status+" "+oneLine(f.From)+" → "+oneLine(f.Path))
		} else {
			fl = append(fl, f.Status+" "+oneLine(f.Path))
		}
	}
	more := ""
	if total > len(fl) {
		more = fmt.Sprintf("… and %d more (%d in all)", total-len(fl), total)
	}
	b.section(heading, fl, more)

	var thread []string
	if s := strings.TrimSpace(string(cp.Thread.Summary)); s != "" {
		thread = append(thread, "summary: "+oneLine(s))
	}
	for _, e := range cp.Thread.KeyExchanges {
		thread = append(thread, oneLine(e.Role)+": "+oneLine(string(e.Gist)))
	}
	b.section("## Thread", thread, "")
	b.section("## Learnings", mapLines(cp.Learnings), "")

	return fitBudget(b.buf.String(), footer, o.Budget)
}

// fitBudget appends the footer, cutting the body at its last whole line
// that fits when a pathological header (a very long session key, every
// warning at once) leaves too little room even for the required sections
// at their shortest.
func fitBudget(body, footer string, budget int) string {
	room := budget - runes(footer)
	if runes(body) > room {
		cut := string([]rune(body)[:max(room, 0)])
		if i := strings.LastIndexByte(cut, '\n'); i > 0 {
			cut = cut[:i+1]
		}
		body = cut
	}
	return body + footer
}

func renderRequired(cp *spec.Checkpoint, o RenderOptions, fieldCap int) string {
	var b strings.Builder
	title := RecoveryHeading
	if o.Title != "" {
		title = o.Title
	}
	b.WriteString(title + "\n\n")
	b.WriteString(checkpointLine(cp))
	if u := cp.Meta.TokenUsage; u.Source != "" {
		fmt.Fprintf(&b, " · context %.0f%%", u.Utilization*100)
	}
	b.WriteString("\n")
	if o.Status != "" {
		b.WriteString(o.Status + "\n")
	}
	if cp.Meta.CompactionCount > o.CompactionWarn {
		fmt.Fprintf(&b, "Warning: %d compactions in this session — a compaction death spiral. Save state to files and keep each step small.\n", cp.Meta.CompactionCount)
	}
	if cp.Working.Interrupted {
		b.WriteString("Note: the last turn was interrupted; check the last action's result before repeating it.\n")
	}
	field := func(heading, text string) {
		text = strings.TrimSpace(text)
		if text == "" {
			return
		}
		fmt.Fprintf(&b, "\n%s\n%s\n", heading, quote(truncateRunes(text, fieldCap)))
	}
	goal := string(cp.Plan.Goal)
	if strings.TrimSpace(goal) == "" && cp.Task != nil {
		// A loop that keeps only a task state still has a goal.
		goal = cp.Task.Goal
	}
	field("## Goal", goal)
	step := "## Current step"
	if cp.Plan.Total > 0 {
		step = fmt.Sprintf("## Current step (%d of %d done)", cp.Plan.Done, cp.Plan.Total)
	}
	field(step, string(cp.Plan.CurrentStep))
	if cp.Task != nil {
		field("## Current phase", cp.Task.CurrentPhase)
	}
	field("## Next action", string(cp.Working.NextAction))
	fail := "## Last failure"
	if t, a := cp.Metacog.LastFailureType, cp.Metacog.LastFailureAction; t != "" || a != "" {
		fail += " (" + strings.Trim(t+" → "+a, " →") + ")"
	}
	field(fail, string(cp.Metacog.LastFailure))
	return b.String()
}

// checkpointLine identifies a checkpoint at the top of its block.
func checkpointLine(cp *spec.Checkpoint) string {
	// A fetched checkpoint was written by someone else's ctxgit: even its
	// metadata is folded.
	return fmt.Sprintf("Checkpoint %s · session %s · %s · trigger %s", oneLine(cp.Meta.CheckpointID), oneLine(cp.Meta.SessionKey),
		cp.Meta.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), oneLine(string(cp.Meta.Trigger)))
}

// packer appends sections while they fit the budget.
type packer struct {
	buf    strings.Builder
	used   int
	budget int
}

// section adds a heading and as many items as fit, then the tail line
// if it fits; a section none of whose items fit is left out whole.
func (p *packer) section(heading string, items []string, tail string) {
	if len(items) == 0 {
		return
	}
	head := "\n" + heading + "\n"
	if p.used+runes(head) >= p.budget {
		return
	}
	var added []string
	used := p.used + runes(head)
	cut := false
	for _, it := range items {
		line := "- " + it + "\n"
		if used+runes(line) > p.budget {
			cut = true
			break
		}
		added = append(added, line)
		used += runes(line)
	}
	if cut {
		// Say how many were left out, giving up items to make room.
		for len(added) > 0 {
			tail = fmt.Sprintf("… %d more not shown", len(items)-len(added))
			if used+runes(tail)+1 <= p.budget {
				break
			}
			used -= runes(added[len(added)-1])
			added = added[:len(added)-1]
		}
	}
	if len(added) == 0 {
		return
	}
	p.buf.WriteString(head)
	for _, l := range added {
		p.buf.WriteString(l)
	}
	if tail != "" && used+runes(tail)+1 <= p.budget {
		p.buf.WriteString(tail + "\n")
		used += runes(tail) + 1
	}
	p.used = used
}

// quote and oneLine render untrusted text (SPEC §10.1).
func quote(text string) string { return safetext.Quote(text) }

func oneLine(s string) string { return safetext.Line(s) }

func mapLines(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, oneLine(s))
	}
	return out
}

func runes(s string) int { return utf8.RuneCountInString(s) }
