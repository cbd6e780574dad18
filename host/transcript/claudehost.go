package transcript

import (
	"strings"
)

// Messages Claude Code writes in the user role that the user did not write
// (docs/HOSTS.md, "Transcripts", "Who wrote a user message"). Each is
// recognised by the structure the host gives it, never by words of the
// conversation: a line flag, or a message that starts with one of the host's
// tags.
//
// hostTags maps an opening tag to the kind it marks.
var hostTags = []struct{ tag, kind string }{
	{"<task-notification>", "task notification"},
	{"<command-name>", "command echo"},
	{"<command-message>", "command echo"},
	{"<command-args>", "command echo"},
	{"<local-command-stdout>", "local command output"},
	{"<local-command-stderr>", "local command output"},
	{"<local-command-caveat>", "local command output"},
	{"<bash-input>", "local command output"},
	{"<bash-stdout>", "local command output"},
	{"<bash-stderr>", "local command output"},
}

const (
	reminderOpen  = "<system-reminder>"
	reminderClose = "</system-reminder>"
)

// hostKind names the kind of host-written message text is, or "" when the
// user wrote it. A message made only of <system-reminder> blocks is the
// host's; reminders around a user's words are cut off by userText.
func hostKind(text string) string {
	t := strings.TrimSpace(text)
	for _, h := range hostTags {
		if strings.HasPrefix(t, h.tag) {
			return h.kind
		}
	}
	if strings.HasPrefix(t, reminderOpen) && strings.TrimSpace(stripReminders(t)) == "" {
		return "reminder"
	}
	return ""
}

// stripReminders removes every <system-reminder>…</system-reminder> span
// (an unclosed one runs to the end).
func stripReminders(s string) string {
	if !strings.Contains(s, reminderOpen) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, reminderOpen)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		rest := s[i+len(reminderOpen):]
		j := strings.Index(rest, reminderClose)
		if j < 0 {
			break
		}
		s = rest[j+len(reminderClose):]
	}
	return b.String()
}

// userText is what the user wrote of a message's text parts: parts the
// host wrote are dropped, and reminders cut out of the rest. kind names
// the host's kind when nothing of the user's is left.
func userText(parts []string) (text, kind string) {
	var kept []string
	for _, p := range parts {
		if hostCommand(ClaudeCode, p) {
			// The command as typed, before its echo: in `claude -p` the
			// host queues it (queue-operation enqueue "/compact").
			kind = "command"
			continue
		}
		if k := hostKind(p); k != "" {
			if cmd, ok := slashCommand(p); ok && k == "command echo" {
				kept = append(kept, cmd)
				continue
			}
			kind = k
			continue
		}
		if p = strings.TrimSpace(stripReminders(p)); p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) > 0 {
		return strings.Join(kept, "\n"), ""
	}
	return "", kind
}

// rejectionMarker starts the tool result Claude Code writes when the user
// declines a tool call at its permission prompt.
const rejectionMarker = "The user doesn't want to"

// slashCommand reads a command echo (<command-name>/NAME</command-name>,
// <command-message>…</command-message>, <command-args>ARGS</command-args>,
// in either order) as the user's instruction "/NAME ARGS", unless NAME is
// one of Claude Code's built-ins that carry no task (hostCommands): those,
// and an echo with no name, stay host messages. The isMeta line that
// follows a command with its expanded text is the host's, not a second
// prompt (docs/HOSTS.md, "Transcripts", "Claude Code: slash commands").
func slashCommand(text string) (string, bool) {
	name := strings.TrimSpace(tagText(text, "command-name"))
	if name == "" || strings.ContainsAny(name, " \t\r\n") {
		return "", false
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if hostCommands[ClaudeCode][strings.ToLower(name)] {
		return "", false
	}
	if args := strings.TrimSpace(tagText(text, "command-args")); args != "" {
		return name + " " + args, true
	}
	return name, true
}

// tagText is the text between <tag> and </tag> in s, or "".
func tagText(s, tag string) string {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	inner, _, _ := strings.Cut(rest, "</"+tag+">")
	return inner
}
