package workspace

import (
	"fmt"
	"slices"
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
	// "session:cp_003", the session by its short id).
	FullName string
	// Session is the session as the block's first line names it: its
	// short id (Workspace.ShortSession); the checkpoint's key when "".
	Session string
	// StateFiles are ctxgit's own files in the workspace (state files and
	// the plan), left out of the changed files as files under .ctxgit/,
	// the default plan and the checkpoint's plan always are.
	StateFiles []string
	// Title replaces the heading line (RecoveryHeading) when the block is
	// not injected after a compaction: "# Resumed: …", "# Previous session
	// …" (docs/cli.md#hook).
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
	room := o.Budget - runes(footer) - runes(required)

	// The user's latest instruction opens the thread, and its room is
	// kept before anything else optional is packed.
	threadHead := latestInstruction(cp.Thread, min(latestInstructionCap+runes(threadHeading), max(room/2, 0)))
	reserve := runes(threadHead)
	if reserve > room {
		threadHead, reserve = "", 0
	}
	b := &packer{budget: o.Budget - runes(footer) - reserve}
	b.buf.WriteString(required)
	b.used = runes(required)

	hp := cp.Thread.HostPlan
	ownPlan := cp.Plan.Source != ""
	if hp != nil && !ownPlan {
		b.section("## Plan ("+oneLine(hp.Tool)+")", hostPlanLines(hp, len(hp.Steps)), "")
	}
	var ds []string
	for i := len(cp.Decisions) - 1; i >= 0; i-- {
		ds = append(ds, decisionLine(cp.Decisions[i]))
	}
	b.section("## Decisions (newest first)", ds, "")
	b.section("## Open items", mapLines(cp.OpenItems), "")
	if hp != nil && ownPlan {
		done, total := hp.Progress()
		b.section(fmt.Sprintf("## Host plan (%s, %d of %d done)", oneLine(hp.Tool), done, total), hostPlanLines(hp, hostPlanExtra), "")
	}
	b.section(changedFiles(cp, o))

	b.budget += reserve
	var thread []string
	lastUser := -1
	for i, e := range cp.Thread.KeyExchanges {
		if e.Role == "user" {
			lastUser = i
		}
	}
	latest := oneLine(string(cp.Thread.LatestPrompt))
	if latest == "" && lastUser >= 0 {
		latest = oneLine(string(cp.Thread.KeyExchanges[lastUser].Gist)) // as latestInstruction falls back
	}
	var shown []string // the texts the section says already
	if threadHead != "" {
		shown = append(shown, latest)
	}
	for _, e := range cp.Thread.KeyExchanges {
		shown = append(shown, oneLine(string(e.Gist)))
	}
	if s := strings.TrimSpace(string(cp.Thread.Summary)); s != "" && !saysOnly(oneLine(s), shown) {
		thread = append(thread, "summary: "+oneLine(s))
	}
	for i, e := range cp.Thread.KeyExchanges {
		gist := oneLine(string(e.Gist))
		if i == lastUser && threadHead != "" && strings.HasPrefix(latest, strings.TrimSuffix(gist, "…")) {
			if i == len(cp.Thread.KeyExchanges)-1 {
				continue // shown whole above, and nothing came after it
			}
			gist = latestAbove // shown whole above: its place in the exchanges is kept
		}
		thread = append(thread, oneLine(e.Role)+": "+gist)
	}
	if threadHead != "" {
		b.sectionUnder(threadHead, thread, "")
	} else {
		b.section("## Thread", thread, "")
	}
	b.section("## Learnings", mapLines(cp.Learnings), "")

	return fitBudget(b.buf.String(), footer, o.Budget)
}

// Shapes of the optional sections (SPEC §10.1, §10.2).
const (
	// latestInstructionCap bounds the latest instruction's text.
	latestInstructionCap = 600
	// latestAbove stands for the latest instruction among the exchanges.
	latestAbove = "(the latest instruction, above)"
	// threadHeading opens the Thread section when it has the latest
	// instruction.
	threadHeading = "\n## Thread\nThe user's latest instruction:\n"
	// decisionWhatCap and decisionWhyCap shorten a decision's item, so
	// one long decision cannot push the others out.
	decisionWhatCap = 240
	decisionWhyCap  = 160
	// hostPlanExtra is how many steps the host plan shows beside a plan
	// file: the current one and the next.
	hostPlanExtra = 3
	// minItemChars is the least a shortened item keeps; a section with
	// less room than that is left out.
	minItemChars = 40
)

// saysOnly reports whether a thread summary says nothing the section
// does not say already: each of its parts (the summary joins the first
// and latest prompts with " ... ", SPEC §8.3) begins a text in shown.
func saysOnly(summary string, shown []string) bool {
	for _, part := range strings.Split(summary, " ... ") {
		part = strings.TrimSuffix(strings.TrimSpace(part), "…")
		found := part == ""
		for _, t := range shown {
			t = strings.TrimSuffix(t, "…")
			if strings.HasPrefix(t, part) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// latestInstruction is the start of the Thread section: the user's
// latest instruction, verbatim (quoted) up to max characters, or "".
func latestInstruction(th spec.Thread, max int) string {
	text := strings.TrimSpace(string(th.LatestPrompt))
	if text == "" {
		// A checkpoint from before latest_prompt: the last user gist.
		for _, e := range th.KeyExchanges {
			if e.Role == "user" {
				text = strings.TrimSpace(string(e.Gist))
			}
		}
	}
	head := threadHeading
	if text == "" || max < runes(head)+minItemChars {
		return ""
	}
	for cap := max - runes(head); cap >= minItemChars; cap -= 20 {
		q := quote(truncateRunes(text, cap)) + "\n"
		if runes(head)+runes(q) <= max {
			return head + q
		}
	}
	return ""
}

// decisionLine is a decision with its reason, each shortened.
func decisionLine(d spec.DecisionRef) string {
	label := d.ID
	if d.When != "" {
		label += " " + d.When
	}
	line := "[" + oneLine(label) + "] " + truncateRunes(oneLine(string(d.What)), decisionWhatCap)
	if why := oneLine(string(d.Why)); why != "" {
		line += " — why: " + truncateRunes(why, decisionWhyCap)
	}
	return line
}

// hostPlanLines lists a host plan's steps, at most max of them: all when
// the host plan is the plan; else the current step and those after it.
func hostPlanLines(hp *spec.HostPlan, max int) []string {
	steps := hp.Steps
	if max < len(steps) {
		from := 0
		if cur := hp.Current(); cur != nil {
			for i := range steps {
				if &steps[i] == cur {
					from = i
				}
			}
		}
		steps = steps[from:min(from+max, len(steps))]
	}
	marks := map[string]string{spec.HostStepDone: "[x] ", spec.HostStepInProgress: "[>] ", spec.HostStepCancelled: "[-] "}
	var out []string
	for _, s := range steps {
		mark, ok := marks[s.Status]
		if !ok {
			mark = "[ ] "
		}
		out = append(out, mark+oneLine(string(s.Text)))
	}
	return out
}

// changedFiles is the changed files section: the workspace's own files,
// never ctxgit's state files or the plan.
func changedFiles(cp *spec.Checkpoint, o RenderOptions) (heading string, items []string, tail string) {
	files := cp.Resources.SinceSession
	total := cp.Resources.SinceCount
	heading = "## Files changed since the session began"
	if total == 0 {
		files, total = cp.Resources.FilesChanged, cp.Resources.ChangedCount
		heading = "## Files changed since the previous checkpoint"
	}
	own := map[string]bool{spec.DefaultPlan: true}
	if cp.Plan.Source != "" {
		own[cp.Plan.Source] = true
	}
	for _, f := range o.StateFiles {
		own[f] = true
	}
	isOwn := func(p string) bool { return own[p] || strings.HasPrefix(p, spec.DirName+"/") }
	shown := 0
	listed := map[string]bool{}
	for _, f := range files {
		listed[f.Path] = true
	}
	for _, p := range transcriptEdits(cp, listed, isOwn) {
		// Edits the snapshots do not show (made before the session's
		// first checkpoint): the transcript saw them succeed.
		files = append(slices.Clip(files), spec.FileChange{Path: p, Status: "M"})
		total++
	}
	for _, f := range files {
		if isOwn(f.Path) && (f.From == "" || isOwn(f.From)) {
			total--
			continue
		}
		if shown == o.ChangedFiles {
			continue
		}
		shown++
		if f.From != "" {
			items = append(items, f.Status+" "+oneLine(f.From)+" → "+oneLine(f.Path))
		} else {
			items = append(items, f.Status+" "+oneLine(f.Path))
		}
	}
	if total > len(items) {
		tail = fmt.Sprintf("… and %d more (%d in all)", total-len(items), total)
	}
	return heading, items, tail
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
	session := o.Session
	if session == "" {
		session = cp.Meta.SessionKey
	}
	b.WriteString(checkpointLine(cp, session))
	if u := cp.Meta.TokenUsage; u.Source != "" {
		fmt.Fprintf(&b, " · context %.0f%%", u.Utilization*100)
	}
	b.WriteString("\n")
	if o.Status != "" {
		b.WriteString(statusSentence(o.Status) + "\n")
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
	current := string(cp.Plan.CurrentStep)
	if cp.Plan.Total > 0 {
		step = fmt.Sprintf("## Current step (%d of %d done)", cp.Plan.Done, cp.Plan.Total)
	}
	if hp := cp.Thread.HostPlan; hp != nil && cp.Plan.Source == "" {
		// No plan file: the plan the agent keeps with its host stands in.
		done, total := hp.Progress()
		step = fmt.Sprintf("## Current step (%d of %d done, %s)", done, total, hp.Tool)
		switch cur := hp.Current(); {
		case cur != nil:
			current = string(cur.Text)
		case total > 0:
			current = "every step of the plan is done"
		}
	}
	field(step, current)
	if cp.Task != nil {
		field("## Current phase", cp.Task.CurrentPhase)
	}
	field("## Next action", string(cp.Working.NextAction))
	fail := "## Last failure"
	if t, a := cp.Metacog.LastFailureType, cp.Metacog.LastFailureAction; t != "" || a != "" {
		fail += " (" + strings.Trim(t+" → "+a, " →") + ")"
	}
	field(fail, string(cp.Metacog.LastFailure))
	if f := cp.Metacog.LastToolFailure; f != nil {
		field(toolFailureHeading, toolFailureLine(f))
	}
	return b.String()
}

// checkpointLine identifies a checkpoint at the top of its block.
func checkpointLine(cp *spec.Checkpoint, session string) string {
	// A fetched checkpoint was written by someone else's ctxgit: even its
	// metadata is folded.
	return fmt.Sprintf("Checkpoint %s · session %s · %s · trigger %s", oneLine(cp.Meta.CheckpointID), oneLine(session),
		cp.Meta.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), oneLine(string(cp.Meta.Trigger)))
}

// packer appends sections while they fit the budget.
type packer struct {
	buf    strings.Builder
	used   int
	budget int
}

// section adds a heading and as many items as fit, then the tail line
// if it fits; a section none of whose items fit, even shortened, is left
// out whole.
func (p *packer) section(heading string, items []string, tail string) {
	if len(items) == 0 {
		return
	}
	p.add("\n"+heading+"\n", items, tail, false)
}

// sectionUnder is section under a head already written out (a heading and
// the lines under it), which is added even when no item fits.
func (p *packer) sectionUnder(head string, items []string, tail string) {
	p.add(head, items, tail, true)
}

func (p *packer) add(head string, items []string, tail string, keepHead bool) {
	if p.used+runes(head) > p.budget || !keepHead && p.used+runes(head) >= p.budget {
		return
	}
	var added []string
	used := p.used + runes(head)
	cut := false
	for _, it := range items {
		line := "- " + it + "\n"
		if used+runes(line) > p.budget {
			cut = true
			if len(added) == 0 {
				// The first item alone is too long: shorten it, keeping
				// room to say how many more there are.
				more := 0
				if len(items) > 1 {
					more = runes(fmt.Sprintf("… %d more not shown\n", len(items)-1))
				}
				if keep := p.budget - used - more - 3; keep >= minItemChars {
					line = "- " + truncateRunes(it, keep) + "\n"
					added = append(added, line)
					used += runes(line)
				}
			}
			break
		}
		added = append(added, line)
		used += runes(line)
	}
	if cut && len(added) > 0 {
		// Say how many were left out, giving up items to make room, and
		// shortening the first rather than giving it up.
		for {
			tail = fmt.Sprintf("… %d more not shown", len(items)-len(added))
			if used+runes(tail)+1 <= p.budget {
				break
			}
			if len(added) > 1 {
				used -= runes(added[len(added)-1])
				added = added[:len(added)-1]
				continue
			}
			used -= runes(added[0])
			tail = fmt.Sprintf("… %d more not shown", len(items)-1)
			keep := p.budget - used - runes(tail) - 1 - 3
			if keep < minItemChars {
				added = nil
				break
			}
			added[0] = "- " + truncateRunes(items[0], keep) + "\n"
			used += runes(added[0])
			break
		}
	}
	if len(added) == 0 && !keepHead {
		return
	}
	p.buf.WriteString(head)
	for _, l := range added {
		p.buf.WriteString(l)
	}
	if tail != "" && len(added) > 0 && used+runes(tail)+1 <= p.budget {
		p.buf.WriteString(tail + "\n")
		used += runes(tail) + 1
	}
	p.used = used
}

// statusSentence says what a status token means (SPEC §12.2): a block
// meant for a chat model carries no bare STATUS: token, which the model
// could echo as if it were its own signal.
func statusSentence(token string) string {
	switch token {
	case StatusOK:
		return "Status: OK, go on."
	case StatusMissingState:
		return "Status: there is no usable task state; rebuild it before the next major action."
	case StatusNoGoal:
		return "Status: the task state has no goal yet; its next action and the last failure below still hold."
	case StatusHalt:
		return "Status: the context is at its limit; save state and stop."
	case StatusComplete:
		return "Status: the task state says the task is done."
	}
	return "Status: " + oneLine(strings.TrimPrefix(token, "STATUS:"))
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
