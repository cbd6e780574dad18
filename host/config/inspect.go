package hostconfig

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Installed is what one host config of a workspace holds of ctxgit's
// hooks, for `ctxgit doctor` (docs/cli.md#doctor).
type Installed struct {
	Host Host
	Path string // workspace-relative file or folder
	// Entries are ctxgit's hooks found, "Event: command", in file order.
	Entries []string
	// Missing are the host events ctxgit installs that the file lacks.
	Missing []string
	// Extra are ctxgit's entries this version would not install: events
	// an older version used (a PreToolUse nudge, a Stop that did nothing)
	// or a command for another event. `ctxgit init --host` removes them.
	Extra []string
	// Outdated are files of ctxgit's own (OpenClaw's HOOK.md, handler.ts)
	// that differ from what this version writes.
	Outdated []string
	// Programs are the distinct programs the entries run, as written.
	Programs []string
	// Err is set when the file cannot be read as the host's config.
	Err error
}

// Inspect reads every host config of the workspace at root and reports
// those that hold ctxgit's hooks or cannot be read. Missing files and
// files without ctxgit's hooks are left out. It changes nothing.
func Inspect(root string) []Installed {
	var out []Installed
	for _, f := range []struct {
		h   *jsonHost
		rel string
	}{
		{claudeHost, ".claude/settings.json"}, {claudeHost, ".claude/settings.local.json"},
		{codexHost, ".codex/hooks.json"}, {geminiHost, ".gemini/settings.json"}, {cursorHost, ".cursor/hooks.json"},
		{qwenHost, ".qwen/settings.json"}, {copilotHost, copilotHooksFile},
	} {
		if in, ok := inspectJSON(root, f.h, f.rel); ok {
			out = append(out, in)
		}
	}
	if in, ok := inspectOpenClaw(root); ok {
		out = append(out, in)
	}
	if in, ok := inspectOpenCode(root); ok {
		out = append(out, in)
	}
	return out
}

func inspectJSON(root string, h *jsonHost, rel string) (Installed, bool) {
	in := Installed{Host: h.host, Path: rel}
	data, _, existed, err := readConfig(filepath.Join(root, filepath.FromSlash(rel)), rel)
	if err != nil {
		in.Err = err
		return in, true
	}
	if !existed {
		return in, false
	}
	body := bytes.TrimPrefix(data, bom)
	if len(bytes.TrimSpace(body)) == 0 {
		return in, false
	}
	doc, err := parse(body)
	if err != nil {
		in.Err = invalidAt(rel, body, err)
		return in, true
	}
	in.Entries = h.owned(DefaultCommand, doc)
	if len(in.Entries) == 0 {
		return in, false
	}
	have := map[string]bool{}
	for _, e := range in.Entries {
		event, cmd, _ := strings.Cut(e, ": ")
		have[event] = true
		in.Programs = appendProgram(in.Programs, cmd)
		if event != "statusLine" && !h.wants(event, cmd) {
			in.Extra = append(in.Extra, e)
		}
	}
	for _, s := range h.hooks {
		if !have[s.hostEvent] {
			in.Missing = append(in.Missing, s.hostEvent)
		}
	}
	return in, true
}

func inspectOpenClaw(root string) (Installed, bool) {
	// An earlier version's folder in the repository: OpenClaw finds it only
	// when the repository is the agent's workspace; init moves it.
	if old, ok := oldOpenClawDir(root); ok {
		if in, ok := inspectOpenClawDir(old, openclawOldDir); ok {
			if in.Err == nil {
				in.Outdated = []string{"HOOK.md", "handler.ts"}
			}
			return in, true
		}
	}
	dir, shown, err := openclawDir()
	if err != nil {
		return Installed{}, false
	}
	return inspectOpenClawDir(dir, shown)
}

func inspectOpenClawDir(dir, shown string) (Installed, bool) {
	in := Installed{Host: OpenClaw, Path: shown}
	md, err := readHookFile(dir, "HOOK.md")
	if errors.Is(err, fs.ErrNotExist) || err == nil && !ownFolder(md) {
		return in, false
	}
	if err != nil {
		in.Err = err
		return in, true
	}
	cmd := installedCommand(dir, DefaultCommand)
	if _, err := os.Stat(filepath.Join(dir, "handler.ts")); err != nil {
		in.Missing = append(in.Missing, "handler.ts")
	} else {
		in.Entries = openclawEntries(cmd)
		in.Programs = appendProgram(nil, cmd)
	}
	for _, f := range openclawFiles(cmd) {
		if data, err := readHookFile(dir, f.name); err == nil && string(data) != f.content {
			in.Outdated = append(in.Outdated, f.name)
		}
	}
	return in, true
}

// appendProgram adds the program of a hook command (its first word,
// unquoted) once.
func appendProgram(progs []string, cmd string) []string {
	p := Program(cmd)
	for _, q := range progs {
		if q == p {
			return progs
		}
	}
	return append(progs, p)
}

// Program is the program a hook command line runs: its first word, with
// the quoting a shell would remove: POSIX single and double quotes and a
// backslash before a quote, a backslash or a space; PowerShell's call
// operator and its doubled quote inside quotes.
func Program(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if rest, ok := strings.CutPrefix(cmd, "& "); ok {
		cmd = strings.TrimSpace(rest)
	}
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == ' ' || c == '\t':
			return b.String()
		case c == '\'' || c == '"':
			for i++; i < len(cmd); i++ {
				if cmd[i] == c {
					if i+1 < len(cmd) && cmd[i+1] == c {
						i++ // PowerShell's doubled quote
					} else {
						break
					}
				}
				b.WriteByte(cmd[i])
			}
		case c == '\\' && i+1 < len(cmd) && (cmd[i+1] == '\'' || cmd[i+1] == '\\' || cmd[i+1] == ' '):
			i++
			b.WriteByte(cmd[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ResolveProgram finds the executable a hook's program names, as a shell
// with this environment would: a name with a slash (on Windows, either
// slash) is a path (a leading `~/` and `$VAR`s expanded; the home
// directory is HOME, else USERPROFILE), any other name is looked up on
// PATH. It returns the file found, or "" when there is none.
func ResolveProgram(prog string, getenv func(string) string) string {
	if !strings.Contains(prog, "/") && (runtime.GOOS != "windows" || !strings.Contains(prog, `\`)) {
		p, err := exec.LookPath(prog)
		if err != nil {
			return ""
		}
		return p
	}
	if rest, ok := strings.CutPrefix(prog, "~/"); ok {
		home := getenv("HOME")
		if home == "" {
			home = getenv("USERPROFILE")
		}
		prog = filepath.Join(home, rest)
	}
	prog = os.Expand(prog, getenv)
	if runtime.GOOS == "windows" {
		// No executable bit: a program is a file with one of PATHEXT's
		// extensions, which the shell adds to a path without one
		// (C:\bin\ctxgit runs C:\bin\ctxgit.exe), as exec.LookPath does.
		p, err := exec.LookPath(prog)
		if err != nil {
			return ""
		}
		return p
	}
	fi, err := os.Stat(prog)
	if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return prog
}

// wants reports whether cmd, found under the host event, is one this
// version installs there: the event is ctxgit's and the command ends in
// its ctxgit event name.
func (h *jsonHost) wants(hostEvent, cmd string) bool {
	for _, s := range h.hooks {
		if s.hostEvent == hostEvent {
			cmd = strings.TrimSpace(cmd)
			if toolEvent(h.host, s.event) && ownsToolHook(cmd) {
				return strings.HasSuffix(cmd, " "+string(h.host)+" "+s.event)
			}
			return strings.HasSuffix(cmd, " hook "+string(h.host)+" "+s.event)
		}
	}
	return false
}

// CardHosts lists the hosts whose hooks in the workspace at root show the
// onboarding card: their project config holds ctxgit's session-start
// entry. `ctxgit mcp` passes them to the MCP server, whose instructions
// then leave the card to those hosts' hooks (one card per session,
// docs/HOSTS.md, "MCP server").
func CardHosts(root string) []Host {
	var out []Host
	for _, in := range Inspect(root) {
		if in.Err != nil || slices.Contains(out, in.Host) {
			continue
		}
		for _, e := range in.Entries {
			if strings.HasSuffix(e, " "+string(in.Host)+" session-start") {
				out = append(out, in.Host)
				break
			}
		}
	}
	return out
}
