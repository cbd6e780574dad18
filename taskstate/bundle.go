package taskstate

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// DefaultBundleBudget bounds the artifact content a bundle carries.
const DefaultBundleBudget = 16 << 10

// Bundle is the working set for the next action (docs/cli.md#bundle).
type Bundle struct {
	Goal                 string           `json:"goal"`
	Phase                string           `json:"current_phase"`
	NextAction           string           `json:"next_action"`
	LastSuccessfulAction *spec.LastAction `json:"last_successful_action"`
	Constraints          []string         `json:"constraints"`
	Artifacts            []BundleArtifact `json:"artifacts"`
	Missing              []string         `json:"missing"`
	Budget               int              `json:"budget"`
	Used                 int              `json:"used"`
}

// BundleArtifact is one relevant file and as much of it as the budget
// allows.
type BundleArtifact struct {
	Path        string `json:"path"`
	Kind        string `json:"kind,omitempty"`
	Description string `json:"description,omitempty"`
	Why         string `json:"why"` // "task state" or "named in next_action"
	Content     string `json:"content,omitempty"`
	Truncated   int    `json:"truncated_bytes,omitempty"`
	Note        string `json:"note,omitempty"` // why no content
}

// Bundle assembles the working bundle from the task state. Fields that are
// missing are reported, never guessed.
func BuildBundle(w *workspace.Workspace, budget int) (*Bundle, error) {
	if budget <= 0 {
		budget = DefaultBundleBudget
	}
	task, err := w.ReadTaskState()
	if err != nil {
		return nil, err
	}
	if !task.Exists {
		return nil, spec.NotFound("%s does not exist: run `ctxgit ensure` to start a task", task.Path)
	}
	ts := task.State
	b := &Bundle{Goal: ts.Goal, Phase: ts.CurrentPhase, NextAction: ts.NextAction,
		LastSuccessfulAction: ts.LastSuccessfulAction, Constraints: ts.Constraints, Budget: budget,
		Artifacts: []BundleArtifact{}, Missing: []string{}}
	for _, m := range []struct {
		name  string
		empty bool
	}{{"goal", ts.Goal == ""}, {"current_phase", ts.CurrentPhase == ""}, {"next_action", ts.NextAction == ""},
		{"last_successful_action", ts.LastSuccessfulAction == nil}, {"constraints", len(ts.Constraints) == 0}} {
		if m.empty {
			b.Missing = append(b.Missing, m.name)
		}
	}
	seen := map[string]bool{}
	for _, a := range ts.Artifacts {
		if !seen[a.Path] {
			seen[a.Path] = true
			b.Artifacts = append(b.Artifacts, BundleArtifact{Path: a.Path, Kind: a.Kind, Description: a.Description, Why: "task state"})
		}
	}
	for _, word := range strings.Fields(ts.NextAction) {
		p := strings.Trim(word, "`'\"(),;:")
		if p == "" || seen[p] || !strings.ContainsAny(p, "./") {
			continue
		}
		if fi, err := os.Lstat(w.Path(p)); err == nil && !fi.IsDir() && inside(p) {
			seen[p] = true
			b.Artifacts = append(b.Artifacts, BundleArtifact{Path: p, Why: "named in next_action"})
		}
	}
	for i := range b.Artifacts {
		fillArtifact(w, &b.Artifacts[i], b)
	}
	return b, nil
}

// inside reports whether a path from the task state stays in the workspace.
func inside(p string) bool {
	if filepath.IsAbs(p) {
		return false
	}
	c := path.Clean(filepath.ToSlash(p))
	return c != ".." && !strings.HasPrefix(c, "../")
}

func fillArtifact(w *workspace.Workspace, a *BundleArtifact, b *Bundle) {
	if !inside(a.Path) {
		a.Note = "outside the workspace: not read"
		return
	}
	room := b.Budget - b.Used
	if room <= 0 {
		a.Note = "budget used up: not read"
		return
	}
	// The file rule (SPEC §3.4): a link out of the workspace, into .git
	// or to a secret, and a FIFO (which would block the read) are not read.
	f, err := w.OpenStateFile(a.Path)
	if why, ok := workspace.Refusal(err); ok {
		a.Note = why
		if why != "not a regular file" {
			a.Note += ": not read"
		}
		return
	}
	if err != nil {
		a.Note = "unreadable: " + workspace.UnwrapPathError(err).Error()
		return
	}
	defer f.Close()
	size := f.Info().Size
	buf := make([]byte, min(int64(room), size))
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	if bytes.IndexByte(buf, 0) >= 0 {
		a.Note = "binary: not shown"
		return
	}
	a.Content = string(buf)
	a.Truncated = int(size) - n
	b.Used += n
}
