package transcript

import (
	"strings"

	"github.com/ctxgit/ctxgit/internal/jsonscan"
)

// How tool calls name files. These are the hosts' tool protocols (Claude
// Code's Read/Write/Edit/MultiEdit/NotebookEdit, OpenClaw's and opencode's
// read/write/edit (opencode names the file filePath),
// Codex's apply_patch, Gemini CLI's read_file/write_file/replace), matched case-insensitively since OpenClaw spells
// Claude Code's tools in lower case.
var (
	readTools  = map[string]bool{"read": true, "read_file": true}
	writeTools = map[string]bool{"write": true, "edit": true, "multiedit": true, "notebookedit": true, "write_file": true, "edit_file": true, "replace": true}
	pathKeys   = []string{"file_path", "notebook_path", "path", "absolute_path", "filePath"}
	// commandKeys name a shell call's command: Claude Code's Bash, Gemini
	// CLI's run_shell_command and OpenClaw's bash/exec {command}, Codex's
	// shell {command: [argv]} and exec_command {cmd}.
	commandKeys = []string{"command", "cmd"}
)

// callInput reads what a call of tool name with input (a JSON object, or a
// string holding one, as Codex and some providers write arguments) names:
// the files it reads or writes, and the command or path a failure line
// shows. A write counts once its call succeeds (see toolResult): a
// failed or refused write changed nothing.
func (st *state) callInput(id, name string, input []byte) {
	lower := strings.ToLower(name)
	if jsonscan.IsString(input) {
		s := jsonscan.StrOr(input)
		if lower == "apply_patch" && !strings.HasPrefix(strings.TrimSpace(s), "{") {
			st.target(id, "apply_patch")
			st.patchFiles(id, s)
			return
		}
		input = []byte(s)
	}
	if lower == "apply_patch" {
		st.target(id, "apply_patch")
		for _, k := range []string{"input", "patch"} {
			if p := jsonscan.Field(input, k); jsonscan.IsString(p) {
				st.patchFiles(id, jsonscan.StrOr(p))
			}
		}
		return
	}
	for _, k := range commandKeys {
		if script, ok := shellScript(jsonscan.Field(input, k)); ok {
			st.target(id, script)
			if c, ok := st.open[id]; ok {
				c.search = isSearch(script)
				st.open[id] = c
			}
			if strings.Contains(script, "apply_patch") || strings.Contains(script, "applypatch") {
				// A patch piped to apply_patch through the shell (bash -lc
				// "apply_patch <<'EOF' …"), as Codex models long wrote them.
				st.patchFiles(id, script)
			}
			return
		}
	}
	read, write := readTools[lower], writeTools[lower]
	if !read && !write {
		return
	}
	for _, k := range pathKeys {
		if p := jsonscan.Field(input, k); jsonscan.IsString(p) {
			st.target(id, jsonscan.StrOr(p))
			st.file(id, write, jsonscan.StrOr(p))
			return
		}
	}
}

// shellScript is the script of a command value: a string, or an argv
// whose script is its third element when it runs a shell with -c or -lc
// (["bash", "-lc", "…"]), else its elements joined by spaces.
func shellScript(raw []byte) (string, bool) {
	if jsonscan.IsString(raw) {
		return jsonscan.StrOr(raw), true
	}
	if len(raw) == 0 || raw[0] != '[' {
		return "", false
	}
	var argv []string
	for el := range jsonscan.EachElement(raw) {
		if len(argv) == 64 {
			break
		}
		argv = append(argv, jsonscan.StrOr(el))
	}
	if len(argv) == 0 {
		return "", false
	}
	if len(argv) >= 3 {
		sh := argv[0][strings.LastIndexAny(argv[0], `/\`)+1:]
		switch sh {
		case "bash", "sh", "zsh", "dash", "ash", "fish", "pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe":
			switch strings.ToLower(argv[1]) {
			case "-c", "-lc", "-ic", "-command", "/c":
				return argv[2], true
			}
		}
	}
	return strings.Join(argv, " "), true
}

// isSearch reports whether a shell script's exit status is a search
// tool's (rg, grep, egrep, fgrep, ag, ack, git grep), whose exit 1 means
// "no match", not a failure. The status of a list or pipeline is its
// last command's, so that one decides.
func isSearch(script string) bool {
	last := script
	for _, sep := range []string{"\n", ";", "&&", "||", "|"} {
		if i := strings.LastIndex(last, sep); i >= 0 {
			last = last[i+len(sep):]
		}
	}
	words := strings.Fields(last)
	for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "command" || words[0] == "sudo" || words[0] == "time") {
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	prog := words[0][strings.LastIndex(words[0], "/")+1:]
	switch prog {
	case "rg", "grep", "egrep", "fgrep", "ag", "ack":
		return true
	case "git":
		for i := 1; i < len(words); i++ {
			switch w := words[i]; {
			case w == "-C" || w == "-c":
				i++ // the option's argument
			case strings.HasPrefix(w, "-"):
			default:
				return w == "grep"
			}
		}
	}
	return false
}

// patchFiles records the files an apply_patch envelope touches: its
// "*** Add File: ", "*** Update File: ", "*** Delete File: " and
// "*** Move to: " headers, as modified once call id succeeds.
func (st *state) patchFiles(id, patch string) {
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), "*** ")
		if !ok {
			continue
		}
		for _, h := range []string{"Add File: ", "Update File: ", "Delete File: ", "Move to: "} {
			if p, ok := strings.CutPrefix(rest, h); ok {
				st.file(id, true, strings.TrimSpace(p))
				break
			}
		}
	}
}
