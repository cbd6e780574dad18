package gitlink

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
)

// Husky v9 owns its hooks directory: `husky` (run by npm's prepare
// script on every install) rewrites every file in `.husky/_`, and each of
// them runs `.husky/_/h`, which finds the user's hook as
// `.husky/$(basename "$0")` and runs it with `sh -e`. So ctxgit's hook
// goes where husky's user puts theirs, as a marked block in
// `.husky/prepare-commit-msg` (created when missing), which husky never
// rewrites. docs/design.md, "Git hooks under a hook manager".

// blockBegin and blockEnd enclose ctxgit's block in a hook of the user's.
const (
	blockBegin = "# >>> ctxgit prepare-commit-msg hook (ctxgit init --git-hooks; --uninstall removes it)"
	blockEnd   = "# <<< ctxgit prepare-commit-msg hook"
)

// A block's note says what --uninstall undoes besides the block itself.
const (
	noteCreated = "# ctxgit created this file: --uninstall removes it when nothing else is left"
	noteNewline = "# ctxgit ended the line above it: --uninstall takes that newline back"
)

// ManagerHusky names husky v9 in InstallResult.Manager.
const ManagerHusky = "husky"

// huskyHook is the user's hook husky v9 runs for the hooks directory
// hooks, or "" when hooks is not husky v9's `.husky/_` (its runner `h`
// beside the hooks).
func huskyHook(hooks string) string {
	if filepath.Base(hooks) != "_" {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(hooks, "h")); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return filepath.Join(filepath.Dir(hooks), HookName)
}

// hookBlock is ctxgit's block in a hook of the user's. It runs ctxgit
// only where ctxgit is installed: the file is usually committed, and a
// teammate without ctxgit commits as before. Husky runs the file with
// `sh -e`, so nothing in it may fail.
func hookBlock(command, note string) string {
	b := blockBegin + "\n"
	if note != "" {
		b += note + "\n"
	}
	return b + "# It adds a Ctxgit-Checkpoint trailer while a ctxgit session is active\n" +
		"# here, never fails a commit, and does nothing where ctxgit is missing.\n" +
		"if command -v " + command + " >/dev/null 2>&1; then " + command + " git-hook " + HookName + " \"$@\" </dev/null || true; fi\n" +
		blockEnd + "\n"
}

// findBlock locates ctxgit's block in script: [start, end) and its note.
// ok is false when there is none; broken is true when there is half of
// one (a begin line without its end line after it), which no edit of
// ctxgit's may touch: what lies after it may be the user's.
func findBlock(script []byte) (start, end int, note string, ok, broken bool) {
	start = lineIndex(script, blockBegin)
	if start < 0 {
		return 0, 0, "", false, lineIndex(script, blockEnd) >= 0
	}
	rel := lineIndex(script[start:], blockEnd)
	if rel < 0 {
		return 0, 0, "", false, true
	}
	end = start + rel + len(blockEnd)
	if end < len(script) && script[end] == '\n' {
		end++
	}
	block := script[start:end]
	switch {
	case bytes.Contains(block, []byte(noteCreated)):
		note = noteCreated
	case bytes.Contains(block, []byte(noteNewline)):
		note = noteNewline
	}
	return start, end, note, true, false
}

// lineIndex is where line starts a line of data, or -1.
func lineIndex(data []byte, line string) int {
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte(line))
		if i < 0 {
			return -1
		}
		i += off
		if i == 0 || data[i-1] == '\n' {
			return i
		}
		off = i + len(line)
	}
}

// maxHook bounds the read of a hook file, a short script.
const maxHook = 1 << 20

// readHook reads a hook file by the file rule (SPEC §3.4): a regular file
// read within a bound, never a link followed or a FIFO waited on. Husky's
// hook file is the repository's, committed with it: a link's target
// would be rewritten into the working tree.
func readHook(path string) ([]byte, error) {
	data, err := regfile.ReadFile(path, maxHook)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("%s is not a regular file (a link, a FIFO): ctxgit edits no hook through it", path)
	}
	return data, err
}

// readHookFollowing reads a hook file through a final link, bounded, as
// a regular file opened without blocking. A hook linked to a script
// elsewhere is common and stays the user's hook; but a hooks directory
// the repository commits (core.hooksPath .githooks) may link it to
// /dev/zero or a FIFO, which os.ReadFile read without end or waited on.
func readHookFollowing(path string) ([]byte, error) {
	data, err := regfile.ReadFileFollowing(path, maxHook)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("%s is not a regular file (a FIFO, a device): ctxgit reads no hook through it", path)
	}
	return data, err
}

// installBlock puts ctxgit's block at the end of the user's hook at path
// (after what the user's hook does, so a tool there that writes the whole
// message cannot drop the trailer), creating the file when missing.
func installBlock(path, command string) (InstallResult, error) {
	res := InstallResult{Path: path, Action: "installed", Manager: ManagerHusky}
	old, err := readHook(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return res, err
		}
		// husky init writes its hooks 0644: husky runs them with sh.
		return res, atomicfile.Write(path, []byte(hookBlock(command, noteCreated)), 0o644)
	}
	if err != nil {
		return res, err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	var next []byte
	start, end, note, ok, broken := findBlock(old)
	if broken {
		return res, brokenBlock(path, old)
	}
	if ok {
		want := hookBlock(command, note)
		if string(old[start:end]) == want {
			res.Action = "unchanged"
			return res, nil
		}
		res.Action = "updated"
		next = append(append(append([]byte{}, old[:start]...), want...), old[end:]...)
	} else {
		next = append([]byte{}, old...)
		note := ""
		if len(next) > 0 && next[len(next)-1] != '\n' {
			next, note = append(next, '\n'), noteNewline
		}
		next = append(next, hookBlock(command, note)...)
	}
	return res, atomicfile.Write(path, next, mode)
}

// uninstallBlock takes ctxgit's block out of the hook at path, leaving
// the rest byte for byte as it was before ctxgit's install, and removes
// the file when ctxgit created it and nothing else was added since.
func uninstallBlock(path string) (InstallResult, error) {
	res := InstallResult{Path: path, Action: "absent", Manager: ManagerHusky}
	old, err := readHook(path)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	start, end, note, ok, broken := findBlock(old)
	if broken {
		return res, brokenBlock(path, old)
	}
	if !ok {
		return res, nil
	}
	head := old[:start]
	if note == noteNewline && len(head) > 0 && head[len(head)-1] == '\n' {
		head = head[:len(head)-1]
	}
	rest := append(append([]byte{}, head...), old[end:]...)
	res.Action = "removed"
	if note == noteCreated && len(rest) == 0 {
		return res, os.Remove(path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return res, err
	}
	return res, atomicfile.Write(path, rest, fi.Mode().Perm())
}

// brokenBlock refuses a hook whose ctxgit block lacks a marker line,
// naming the line of the one that is there.
func brokenBlock(path string, script []byte) error {
	at, what := lineIndex(script, blockBegin), "a begin line of ctxgit's block with no end line after it"
	if at < 0 {
		at, what = lineIndex(script, blockEnd), "an end line of ctxgit's block with no begin line before it"
	}
	line := 1 + bytes.Count(script[:at], []byte{'\n'})
	return spec.InvalidAt(path, line, "%s: mend or remove it by hand, then run init --git-hooks again", what)
}
