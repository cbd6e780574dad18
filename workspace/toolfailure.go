package workspace

import (
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/spec"
)

// unloggedToolFailure is the transcript's newest failing tool call f as a
// checkpoint keeps it (SPEC §8.3): nil when the failure log's newest entry,
// resolved or not, is as new as f, or names f's command or error line (the
// agent logged it), when an entry was resolved since f (the agent dealt
// with it: a resolved failure must not come back as a tool call), or when
// f has no time and the log has an entry to compare with.
func unloggedToolFailure(f *spec.ToolFailure, log []spec.FailureEntry) *spec.ToolFailure {
	if f == nil || f.Tool == "" && f.Target == "" && f.Error == "" {
		return nil
	}
	if len(log) > 0 {
		logged := &log[len(log)-1]
		at, err := time.Parse(time.RFC3339, f.At)
		if err != nil || !logged.When.IsZero() && !at.After(logged.When) {
			return nil
		}
		for _, e := range log {
			if !e.ResolvedAt.IsZero() && !at.After(e.ResolvedAt) {
				return nil
			}
		}
		for _, s := range []string{f.Target, f.Error} {
			if s = strings.TrimSpace(s); len(s) >= 8 && strings.Contains(logged.Body+"\n"+logged.Summary, s) {
				return nil
			}
		}
	}
	c := *f
	return &c
}

// toolFailureLine renders a failing tool call as the one line of the
// block's "## Last failing tool call" section (SPEC §10.1): tool, command
// or path, exit status, error line.
func toolFailureLine(f *spec.ToolFailure) string {
	line := f.Tool
	if f.Target != "" {
		line += ": " + f.Target
	}
	result := f.Error
	if f.ExitCode != nil {
		sep := ": "
		if f.Error == spec.NoOutput {
			sep = ", "
		}
		result = strings.TrimSuffix("exit "+strconv.Itoa(*f.ExitCode)+sep+f.Error, sep)
	}
	if result != "" {
		line += " — " + result
	}
	return oneLine(line)
}

// modifiedSince are the files of modified whose newest successful write
// (at, parallel to modified) came after the previous checkpoint was
// taken (SPEC §8.3): an edit from before it is in its snapshot, and
// naming it again would list a file the session may since have
// restored. A write of unknown time is kept (it may be recent), and
// every write is on a session's first checkpoint.
func modifiedSince(modified, at []string, prev *spec.Checkpoint) []string {
	if prev == nil || prev.Meta.CreatedAt.IsZero() {
		return modified
	}
	var out []string
	for i, p := range modified {
		if i < len(at) {
			if t, err := time.Parse(time.RFC3339Nano, at[i]); err == nil && !t.After(prev.Meta.CreatedAt) {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// transcriptEdits are the files the transcript's successful edits since
// the previous checkpoint name (resources.files_modified_since_previous)
// that the changed files lack: workspace files only (relative paths
// inside it), never ctxgit's own.
func transcriptEdits(cp *spec.Checkpoint, listed map[string]bool, own func(string) bool) []string {
	var out []string
	for _, p := range cp.Resources.ModifiedSincePrevious {
		clean := path.Clean(p)
		// A path the transcript left absolute or climbing out lies
		// outside the workspace (Windows: a drive letter or a UNC name).
		outside := path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(p, `\`) ||
			len(p) >= 2 && p[1] == ':'
		if p == "" || clean == "." || outside || listed[clean] || own(clean) {
			continue
		}
		listed[clean] = true
		out = append(out, clean)
	}
	return out
}

// toolFailureHeading heads the transcript's failing tool call (SPEC §10.1).
const toolFailureHeading = "## Last failing tool call"
