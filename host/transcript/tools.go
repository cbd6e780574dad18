package transcript

import (
	"strings"
)

// How tool calls name files. These are the hosts' tool protocols (Claude
// Code's Read/Write/Edit/MultiEdit/NotebookEdit, OpenClaw's read/write/edit,
// Codex's apply_patch, Gemini CLI's read_file/write_file/replace), matched case-insensitively since OpenClaw spells
// Claude Code's tools in lower case.
var (
	readTools  = map[string]bool{"read": true, "read_file": true}
	writeTools = map[string]bool{"write": true, "edit": true, "multiedit": true, "notebookedit": true, "write_file": true, "edit_file": true, "replace": true}
	pathKeys   = []string{"file_path", "notebook_path", "path", "absolute_path"}
)

// fileTool records the files named by a call of tool name with input (a
// JSON object, or a string holding one, as Codex and some providers write
// arguments).
func (st *state) fileTool(name string, input []byte) {
	lower := strings.ToLower(name)
	read, write := readTools[lower], writeTools[lower]
	if !read && !write && lower != "apply_patch" {
		return
	}
	if isString(input) {
		s := strOr(input)
		if lower == "apply_patch" && !strings.HasPrefix(strings.TrimSpace(s), "{") {
			st.patchFiles(s)
			return
		}
		input = []byte(s)
	}
	if lower == "apply_patch" {
		for _, k := range []string{"input", "patch"} {
			if p := field(input, k); isString(p) {
				st.patchFiles(strOr(p))
			}
		}
		return
	}
	for _, k := range pathKeys {
		if p := field(input, k); isString(p) {
			st.file(write, strOr(p))
			return
		}
	}
}

// patchFiles records the files an apply_patch envelope touches: its
// "*** Add File: ", "*** Update File: ", "*** Delete File: " and
// "*** Move to: " headers.
func (st *state) patchFiles(patch string) {
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		rest, ok := strings.CutPrefix(line, "*** ")
		if !ok {
			continue
		}
		for _, h := range []string{"Add File: ", "Update File: ", "Delete File: ", "Move to: "} {
			if p, ok := strings.CutPrefix(rest, h); ok {
				st.file(true, p)
				break
			}
		}
	}
}
