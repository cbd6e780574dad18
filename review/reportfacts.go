package review

import (
	"slices"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// resolvedAsAt gives each failure the resolution the failure log of
// state (the report's newest checkpoint) records for it (SPEC §5.6):
// an entry first seen open may have been resolved since, and what
// resolved it is kept apart (ResolvedBy).
func resolvedAsAt(failures []ReportFailure, state *cpState) []ReportFailure {
	if state == nil || state.bad.failures {
		return failures
	}
	now := map[string]spec.FailureEntry{}
	for _, f := range state.failures {
		now[failureKey(f)] = f
	}
	for i := range failures {
		f := &failures[i]
		if f.Change == ChangeRemoved {
			continue
		}
		if cur, ok := now[failureKey(f.FailureEntry)]; ok {
			f.Resolved, f.ResolvedAt = cur.Resolved, cur.ResolvedAt
		}
		f.ResolvedBy = resolvedBy(f.Resolved)
	}
	return failures
}

// resolvedBy is the HOW of a "Resolved:" value "TIME — HOW" (SPEC §5.6),
// or the whole value when it has no dash.
func resolvedBy(value string) string {
	value = strings.TrimSpace(value)
	if value == "" {
		return ""
	}
	for _, dash := range []string{" — ", " – ", " - "} {
		if _, how, ok := strings.Cut(value, dash); ok && strings.TrimSpace(how) != "" {
			return safetext.Line(strings.TrimSpace(how))
		}
	}
	return safetext.Line(value)
}

// sortFailures puts open failures first, then resolved ones, each in the
// order they were recorded; removed entries last.
func sortFailures(fs []ReportFailure) {
	rank := func(f ReportFailure) int {
		switch {
		case f.Change == ChangeRemoved:
			return 2
		case f.IsResolved():
			return 1
		}
		return 0
	}
	slices.SortStableFunc(fs, func(a, b ReportFailure) int { return rank(a) - rank(b) })
}

// userPrompts are the user's instructions a checkpoint's thread holds, in
// order: its key exchanges' user turns, then the latest prompt.
func userPrompts(t spec.Thread) []string {
	var out []string
	for _, e := range t.KeyExchanges {
		if e.Role == "user" {
			out = append(out, string(e.Gist))
		}
	}
	if p := strings.TrimSpace(string(t.LatestPrompt)); p != "" {
		out = append(out, p)
	}
	return out
}

// instructions are the user's instructions across rows (in time order),
// each once, named by the first checkpoint that recorded it (with its
// session's key when multi). A gist cut short ("…") and the whole prompt
// are one instruction: the longer text is kept.
func instructions(rows []ReportRow, multi bool) []ReportInstruction {
	var out []ReportInstruction
	for _, row := range rows {
		at := row.CheckpointID
		if multi {
			at = sessionCheckpoint(row.Session, at)
		}
		for _, p := range row.Prompts {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			i := slices.IndexFunc(out, func(o ReportInstruction) bool { return samePrompt(o.Text, p) })
			switch {
			case i < 0:
				out = append(out, ReportInstruction{Text: p, At: at, When: row.CreatedAt})
			case len([]rune(p)) > len([]rune(out[i].Text)):
				out[i].Text = p
			}
		}
	}
	return out
}

// samePrompt reports whether two records of a prompt are the same
// instruction: equal once folded, or one the other cut short.
func samePrompt(a, b string) bool {
	a, b = fold(a), fold(b)
	if a == b {
		return true
	}
	cut := func(s string) (string, bool) { return strings.CutSuffix(s, "…") }
	if p, ok := cut(a); ok && strings.HasPrefix(b, strings.TrimSpace(p)) {
		return true
	}
	if p, ok := cut(b); ok && strings.HasPrefix(a, strings.TrimSpace(p)) {
		return true
	}
	return false
}

// readings are the context readings of the report's sessions within its
// span: each checkpoint's recorded usage and the hooks' readings
// (taskstate's history, the status line's included), oldest first. A
// hook reading at a checkpoint's instant is that checkpoint's.
func readings(w *workspace.Workspace, r *Report) []ReportReading {
	if len(r.Checkpoints) == 0 {
		return nil
	}
	first, last := r.Checkpoints[0].CreatedAt, r.Checkpoints[len(r.Checkpoints)-1].CreatedAt
	var out []ReportReading
	type instant struct {
		session string
		at      int64
	}
	seen := map[instant]bool{}
	for _, c := range r.Checkpoints {
		if c.TokenUsage.Source == "" {
			continue
		}
		seen[instant{c.Session, c.CreatedAt.UnixNano()}] = true
		out = append(out, ReportReading{Session: c.Session, At: c.CreatedAt, Utilization: c.TokenUsage.Utilization,
			Tokens: c.TokenUsage.InputTokens, Window: c.TokenUsage.ContextWindow, Source: c.TokenUsage.Source, Checkpoint: c.CheckpointID})
	}
	for _, s := range r.Sessions {
		if strings.Contains(s, "/") {
			continue // a fetched session's readings stayed on its machine
		}
		for _, h := range taskstate.ReadingHistory(w, s) {
			// The span runs to the last checkpoint; readings after it
			// are work the report does not cover.
			if h.At.Before(first) || h.At.After(last) {
				continue
			}
			if k := (instant{s, h.At.UnixNano()}); !seen[k] {
				seen[k] = true
				out = append(out, ReportReading{Session: s, At: h.At, Utilization: h.Value, Tokens: h.Tokens, Window: h.Window, Source: h.Source})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b ReportReading) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Checkpoint, b.Checkpoint)
	})
	return out
}

// zone is where the report's times are shown.
func (r *Report) zone() *time.Location {
	if r.Zone == nil {
		return time.Local
	}
	return r.Zone
}
