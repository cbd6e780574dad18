package hostconfig

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/internal/hookpath"
)

// hookSpec is one hook ctxgit installs: the host's event name, ctxgit's
// event argument, a matcher ("" = none, so every occurrence fires) and a
// timeout in the host's unit.
type hookSpec struct {
	hostEvent string
	event     string
	matcher   string
	timeout   int
}

// jsonHost describes a host whose hooks live in a JSON file.
type jsonHost struct {
	host Host
	// grouped hosts nest commands in matcher groups,
	// {matcher?, hooks: [{type, command, timeout}]}; the others (Cursor)
	// list {command, timeout} directly under the event.
	grouped bool
	// named hosts (Gemini CLI) give each hook a name, which their /hooks
	// panel shows and can disable.
	named bool
	// version hosts (Cursor) want {"version": 1} at the top.
	version bool
	// statusLine hosts (Claude Code) also get ctxgit's gauge.
	statusLine bool
	// cmdKeys name the command in an entry ("command" when nil); Copilot
	// CLI's entries give one per shell, "bash" and "powershell", and
	// ctxgit writes the same command into each.
	cmdKeys []string
	// timeoutKey names the timeout ("timeout" when empty).
	timeoutKey string
	// typed hosts' entries say "type": "command" though not grouped.
	typed bool
	hooks []hookSpec
	// notes are shown after an install changed the file.
	notes []string
}

// copilotHooksFile is ctxgit's own file among Copilot CLI's repository
// hooks.
const copilotHooksFile = ".github/hooks/ctxgit.json"

// Each host gets exactly the events that do work for it (docs/cli.md#init),
// with timeouts inside the host's documented budget (docs/HOSTS.md): a
// process per tool call that does nothing is a cost every user pays.
var (
	claudeHost = &jsonHost{
		host: ClaudeCode, grouped: true, statusLine: true,
		hooks: []hookSpec{
			{"SessionStart", "session-start", "", 30},
			{"PreCompact", "pre-compact", "", 30},
			{"PostToolUse", "post-tool-use", "*", 5},
			{"UserPromptSubmit", "user-prompt-submit", "", 5},
			{"SessionEnd", "session-end", "", 30},
		},
	}
	codexHost = &jsonHost{
		host: Codex, grouped: true,
		hooks: []hookSpec{
			{"SessionStart", "session-start", "", 30},
			{"PreCompact", "pre-compact", "", 30},
			{"PostToolUse", "post-tool-use", "", 5},
			{"UserPromptSubmit", "user-prompt-submit", "", 5},
			// Codex clamps a SessionEnd timeout to 3 s
			// (SESSION_END_MAX_TIMEOUT_SEC, openai/codex#33895) and
			// warns at every start about a larger one; the checkpoint
			// runs detached.
			{"SessionEnd", "session-end", "", 3},
		},
		notes: []string{
			"Codex runs a project's hooks only once you trust them inside Codex: start codex here, trust the folder, " +
				"then review and trust ctxgit's hooks in /hooks (a changed entry needs trusting again; ctxgit doctor says which await it); " +
				"Codex versions that predate hooks-on-by-default also need `[features] codex_hooks = true` in ~/.codex/config.toml",
		},
	}
	geminiHost = &jsonHost{
		host: Gemini, grouped: true, named: true,
		// Gemini CLI timeouts are milliseconds.
		hooks: []hookSpec{
			{"SessionStart", "session-start", "", 30000},
			{"PreCompress", "pre-compress", "", 30000},
			{"BeforeAgent", "before-agent", "", 10000},
			{"AfterTool", "after-tool", "", 5000},
		},
	}
	// Qwen Code reads Claude Code's shape from .qwen/settings.json
	// (QwenLM/qwen-code docs/users/features/hooks.md). Its docs give
	// timeouts in milliseconds; 0.24.4 reads them in seconds, except that
	// a value of 1000 or more keeps its old millisecond meaning
	// (packages/core/src/hooks/hook-timeout.ts): milliseconds of at least
	// 1000 mean the same to both.
	qwenHost = &jsonHost{
		host: QwenCode, grouped: true, named: true,
		hooks: []hookSpec{
			{"SessionStart", "session-start", "", 30000},
			{"PreCompact", "pre-compact", "", 30000},
			{"PostToolUse", "post-tool-use", "", 5000},
			{"UserPromptSubmit", "user-prompt-submit", "", 5000},
			{"Stop", "stop", "", 5000},
			{"SessionEnd", "session-end", "", 10000},
		},
		notes: []string{
			"Qwen Code reads a project's .qwen/settings.json only in a folder it trusts when folder trust is on (security.folderTrust.enabled): trust this folder when Qwen Code asks",
		},
	}
	// GitHub Copilot CLI loads .github/hooks/*.json in a folder it trusts
	// (docs.github.com copilot-cli-reference/cli-hooks-reference): the
	// camelCase event names, whose payloads are camelCase, and entries
	// {type, bash, powershell, timeoutSec} listed under the event.
	copilotHost = &jsonHost{
		host: Copilot, version: true, typed: true,
		cmdKeys: []string{"bash", "powershell"}, timeoutKey: "timeoutSec",
		hooks: []hookSpec{
			{"sessionStart", "session-start", "", 30},
			{"userPromptSubmitted", "user-prompt-submit", "", 5},
			{"postToolUse", "post-tool-use", "", 5},
			{"preCompact", "pre-compact", "", 30},
			{"sessionEnd", "session-end", "", 10},
		},
		notes: []string{
			"Copilot CLI runs a repository's .github/hooks only in a folder you trust: start copilot here and trust the folder for future sessions (it is kept in trustedFolders of ~/.copilot/config.json), or pass --trust-folder to one prompt-mode session",
		},
	}
	cursorHost = &jsonHost{
		host: Cursor, version: true,
		hooks: []hookSpec{
			{"sessionStart", "session-start", "", 30},
			{"preCompact", "pre-compact", "", 30},
			{"postToolUse", "post-tool-use", "", 5},
		},
	}
)

// owns reports whether cmd is ctxgit's `<sub>` command: it starts with the
// configured command or plain "ctxgit" followed by sub, or its program,
// however a shell quotes it, is any path to a binary named ctxgit (so a
// changed Command or Program still finds the entries an older one wrote).
func owns(command, cmd, sub string) bool {
	cmd = strings.TrimSpace(cmd)
	for _, p := range []string{command, "ctxgit"} {
		if cmd == p+" "+sub || strings.HasPrefix(cmd, p+" "+sub+" ") {
			return true
		}
	}
	// The last " sub" word: a path may hold the word too.
	prog, ok := strings.CutSuffix(cmd, " "+sub)
	if !ok {
		i := strings.LastIndex(cmd, " "+sub+" ")
		if i < 0 {
			return false
		}
		prog = cmd[:i]
	}
	exe := Program(prog)
	exe = exe[strings.LastIndexAny(exe, `/\`)+1:]
	return strings.TrimSuffix(strings.ToLower(exe), ".exe") == "ctxgit"
}

// ToolHookProgram is the small tool-call hook (cmd/ctxgit-hook): init
// --host installs it for the tool-call events when it is installed beside
// ctxgit. It runs as "ctxgit-hook HOST EVENT".
const ToolHookProgram = "ctxgit-hook"

// toolEvent reports whether event is one of host's per-tool-call events,
// the ones ctxgit-hook answers (hookpath.ToolEvent).
func toolEvent(host Host, event string) bool { return hookpath.ToolEvent(string(host), event) }

// ownsToolHook reports whether cmd runs ctxgit-hook: its program, however
// a shell quotes it, before "HOST EVENT", is a binary named ctxgit-hook.
func ownsToolHook(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	for range 2 {
		i := strings.LastIndexByte(cmd, ' ')
		if i < 0 {
			return false
		}
		cmd = strings.TrimSpace(cmd[:i])
	}
	exe := Program(cmd)
	exe = exe[strings.LastIndexAny(exe, `/\`)+1:]
	return strings.TrimSuffix(strings.ToLower(exe), ".exe") == ToolHookProgram
}

// command is an event's command line: "<tool> HOST EVENT" for a tool-call
// event when tool (ctxgit-hook's command) is given, else
// "<command> hook HOST EVENT".
func (h *jsonHost) command(command, tool string, s hookSpec) string {
	if tool != "" && toolEvent(h.host, s.event) {
		return tool + " " + string(h.host) + " " + s.event
	}
	return command + " hook " + string(h.host) + " " + s.event
}

// keys are the names an entry's command goes under.
func (h *jsonHost) keys() []string {
	if h.cmdKeys == nil {
		return []string{"command"}
	}
	return h.cmdKeys
}

// entryCommand is the command of an entry, under the first of the host's
// keys it has.
func (h *jsonHost) entryCommand(v *value) (string, bool) {
	for _, k := range h.keys() {
		if c, ok := v.str(k); ok {
			return c, true
		}
	}
	return "", false
}

// entry builds ctxgit's entry for one event, in the host's shape.
func (h *jsonHost) entry(command, tool string, s hookSpec) *value {
	hook := newObject()
	if h.named {
		hook.set("name", newString("ctxgit-"+s.event))
	}
	if h.grouped || h.typed {
		hook.set("type", newString("command"))
	}
	for _, k := range h.keys() {
		hook.set(k, newString(h.command(command, tool, s)))
	}
	timeout := h.timeoutKey
	if timeout == "" {
		timeout = "timeout"
	}
	hook.set(timeout, newInt(s.timeout))
	if !h.grouped {
		return hook
	}
	group := newObject()
	if s.matcher != "" {
		group.set("matcher", newString(s.matcher))
	}
	list := newArray()
	list.elems = []*value{hook}
	group.set("hooks", list)
	return group
}

// ownEntry reports whether v is a hook object running one of ctxgit's
// hook commands, through ctxgit or ctxgit-hook.
func ownEntry(command string, v *value) bool { return claudeHost.ownEntry(command, v) }

// ownEntry reports whether v is a hook object whose command, under any of
// the host's keys, runs one of ctxgit's hook commands.
func (h *jsonHost) ownEntry(command string, v *value) bool {
	if v == nil || v.kind != kObject {
		return false
	}
	for _, k := range h.keys() {
		if c, ok := v.str(k); ok && (owns(command, c, "hook") || ownsToolHook(c)) {
			return true
		}
	}
	return false
}

// strip returns elems without ctxgit's entries. A matcher group left
// empty by that goes too; slot is where the first such group stood (-1
// when none), so a reinstall puts ctxgit's group back in the same place.
func (h *jsonHost) strip(command string, elems []*value) (out []*value, slot int) {
	slot = -1
	out = []*value{}
	for _, g := range elems {
		if !h.grouped {
			if h.ownEntry(command, g) {
				if slot < 0 {
					slot = len(out)
				}
				continue
			}
			out = append(out, g)
			continue
		}
		inner := g.get("hooks")
		if inner == nil || inner.kind != kArray {
			out = append(out, g)
			continue
		}
		kept := []*value{}
		for _, e := range inner.elems {
			if !h.ownEntry(command, e) {
				kept = append(kept, e)
			}
		}
		switch {
		case len(kept) == len(inner.elems):
			out = append(out, g)
		case len(kept) == 0:
			if slot < 0 {
				slot = len(out)
			}
		default:
			inner.elems = kept
			out = append(out, g)
		}
	}
	return out, slot
}

// eachHook calls f with every hook entry in doc and its event, in file
// order (in a grouped host's file, the entries of each matcher group).
func (h *jsonHost) eachHook(doc *value, f func(event string, e *value)) {
	hooks := doc.get("hooks")
	if hooks == nil || hooks.kind != kObject {
		return
	}
	for _, m := range hooks.members {
		if m.val.kind != kArray {
			continue
		}
		for _, g := range m.val.elems {
			list := []*value{g}
			if h.grouped {
				inner := g.get("hooks")
				if inner == nil || inner.kind != kArray {
					continue
				}
				list = inner.elems
			}
			for _, e := range list {
				f(m.key, e)
			}
		}
	}
}

// owned lists ctxgit's entries in doc as "Event: command", in file order.
func (h *jsonHost) owned(command string, doc *value) []string {
	var out []string
	h.eachHook(doc, func(event string, e *value) {
		if h.ownEntry(command, e) {
			c, _ := h.entryCommand(e)
			out = append(out, event+": "+c)
		}
	})
	if h.statusLine {
		if c, ok := ownStatusLine(command, doc.get("statusLine")); ok {
			out = append(out, "statusLine: "+c)
		}
	}
	return out
}

// foreign lists the hook commands in doc that are not ctxgit's,
// "Event: command", in file order: what the host runs beside ctxgit's.
func (h *jsonHost) foreign(command string, doc *value) []string {
	var out []string
	h.eachHook(doc, func(event string, e *value) {
		if c, ok := h.entryCommand(e); ok && !h.ownEntry(command, e) {
			out = append(out, event+": "+c)
		}
	})
	return out
}

func ownStatusLine(command string, v *value) (string, bool) {
	if v == nil || v.kind != kObject {
		return "", false
	}
	c, ok := v.str("command")
	return c, ok && owns(command, c, "statusline")
}

// apply installs ctxgit's entries into doc, or removes them, in place.
// Everything that is not ctxgit's stays where it was. An event list or
// the hooks object is removed only when removing ctxgit's entries is what
// emptied it. Errors are *syntaxError at the offending value.
func (h *jsonHost) apply(doc *value, command, file string, uninstall bool) (notes []string, err error) {
	return h.applyTool(doc, command, "", file, uninstall)
}

// applyTool is apply with tool, ctxgit-hook's command ("" for none), run
// for the tool-call events.
func (h *jsonHost) applyTool(doc *value, command, tool, file string, uninstall bool) (notes []string, err error) {
	if doc.kind != kObject {
		return nil, &syntaxError{doc.off, fmt.Sprintf("the top level is %s, not an object", describe(doc))}
	}
	hooks := doc.get("hooks")
	if hooks != nil && hooks.kind != kObject {
		return nil, &syntaxError{hooks.off, fmt.Sprintf("%q is %s, not an object", "hooks", describe(hooks))}
	}
	if !uninstall {
		// Only a new file gets Cursor's version: a user's file without
		// one is theirs to keep as it is.
		if h.version && len(doc.members) == 0 {
			doc.members = append([]member{{"version", newInt(1)}}, doc.members...)
		}
		if hooks == nil {
			hooks = newObject()
			doc.set("hooks", hooks)
		}
	}
	if hooks != nil {
		hadAny := len(hooks.members) > 0
		if err := h.applyHooks(hooks, command, tool, uninstall); err != nil {
			return nil, err
		}
		if hadAny && len(hooks.members) == 0 {
			doc.del("hooks")
		}
	}
	if h.statusLine {
		notes = append(notes, h.applyStatusLine(doc, command, file, uninstall)...)
	}
	return notes, nil
}

func (h *jsonHost) applyHooks(hooks *value, command, tool string, uninstall bool) error {
	specs := map[string]hookSpec{}
	if !uninstall {
		for _, s := range h.hooks {
			specs[s.hostEvent] = s
		}
	}
	// With a key given twice the host reads the last one: ctxgit's entry
	// goes there.
	last := map[string]int{}
	for i, m := range hooks.members {
		last[m.key] = i
	}
	placed := map[string]bool{}
	kept := hooks.members[:0:0]
	for i, m := range hooks.members {
		s, want := specs[m.key]
		if m.val.kind != kArray {
			if want && last[m.key] == i {
				return &syntaxError{m.val.off, fmt.Sprintf("%q is %s, not a list", jsonPath("hooks", m.key), describe(m.val))}
			}
			kept = append(kept, m)
			continue
		}
		elems, slot := h.strip(command, m.val.elems)
		if want && last[m.key] == i {
			if slot < 0 {
				slot = len(elems)
			}
			elems = append(elems[:slot], append([]*value{h.entry(command, tool, s)}, elems[slot:]...)...)
			placed[m.key] = true
		}
		if len(elems) == 0 && len(m.val.elems) > 0 {
			continue // emptied by removing ctxgit's entries
		}
		m.val.elems = elems
		kept = append(kept, m)
	}
	hooks.members = kept
	for _, s := range h.hooks {
		if !uninstall && !placed[s.hostEvent] {
			list := newArray()
			list.elems = []*value{h.entry(command, tool, s)}
			hooks.set(s.hostEvent, list)
		}
	}
	return nil
}

func (h *jsonHost) applyStatusLine(doc *value, command, file string, uninstall bool) []string {
	want := command + " statusline"
	sl := doc.get("statusLine")
	cur, ours := ownStatusLine(command, sl)
	switch {
	case uninstall:
		if ours {
			doc.del("statusLine")
		}
		return nil
	case sl == nil:
		v := newObject()
		v.set("type", newString("command"))
		v.set("command", newString(want))
		doc.set("statusLine", v)
		return nil
	case ours:
		if cur != want {
			sl.set("command", newString(want))
		}
		return nil
	}
	theirs, ok := sl.str("command")
	if !ok {
		return []string{fmt.Sprintf("kept your statusLine in %s; to see ctxgit's context gauge too, make it also run `%s` with the same stdin", file, want)}
	}
	chained := "sh -c 'in=$(cat); printf %s \"$in\" | " + shellQuoteInner(theirs) +
		"; printf %s \"$in\" | " + shellQuoteInner(want) + "'"
	return []string{fmt.Sprintf("kept your statusLine in %s (%s); to see ctxgit's context gauge as well, chain both: set its \"command\" to %s",
		file, quoteJSON(theirs), quoteJSON(chained))}
}

// shellQuoteInner escapes s for use inside a single-quoted sh string.
func shellQuoteInner(s string) string {
	return strings.ReplaceAll(s, "'", `'\''`)
}

// trivial reports whether doc says nothing at all: after an uninstall
// such a file is removed rather than left behind as "{}".
func (h *jsonHost) trivial(doc *value) bool {
	if len(doc.members) == 0 {
		return true
	}
	if h.version && len(doc.members) == 1 && doc.members[0].key == "version" {
		v := doc.members[0].val
		return v.kind == kNumber && v.text == "1"
	}
	return false
}

// diff returns what is in after and not before, and the reverse, as
// multisets in order.
func diff(before, after []string) (added, removed []string) {
	count := map[string]int{}
	for _, s := range before {
		count[s]++
	}
	for _, s := range after {
		if count[s] > 0 {
			count[s]--
			continue
		}
		added = append(added, s)
	}
	for _, s := range before {
		if count[s] > 0 {
			count[s]--
			removed = append(removed, s)
		}
	}
	return added, removed
}
