package review

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/internal/gitcmd"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// WhyTarget is what `ctxgit why` asks about: a file, and a range of its
// lines (From and To are 0 for the whole file).
type WhyTarget struct {
	Path     string
	From, To int
}

// ParseWhyTarget reads PATH[:LINE[,LINE]]. The line part is taken from
// the right, so a path with a colon of its own (C:\…) still works.
func ParseWhyTarget(arg string) (WhyTarget, error) {
	if arg == "" {
		return WhyTarget{}, spec.Usage("why takes PATH[:LINE[,LINE]]")
	}
	t := WhyTarget{Path: arg}
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 || i == len(arg)-1 {
		return t, nil
	}
	lines := arg[i+1:]
	first, last, hasLast := strings.Cut(lines, ",")
	from, err := strconv.Atoi(first)
	if err != nil {
		if strings.Trim(lines, "0123456789,") == "" {
			return t, spec.Usage("why %s: a line range is LINE or LINE,LINE", arg)
		}
		return t, nil // the colon is the path's
	}
	to := from
	if hasLast {
		if to, err = strconv.Atoi(last); err != nil {
			return t, spec.Usage("why %s: a line range is LINE or LINE,LINE", arg)
		}
	}
	if from < 1 || to < from {
		return t, spec.Usage("why %s: lines count from 1, and the range must not run backwards", arg)
	}
	return WhyTarget{Path: arg[:i], From: from, To: to}, nil
}

// WhyResult is `ctxgit why`'s answer: the file's lines grouped by the
// commit that last changed them, each followed to its checkpoint.
type WhyResult struct {
	Path  string    `json:"path"`
	Hunks []WhyHunk `json:"hunks"`
}

// WhyHunk is a run of lines last changed by one commit.
type WhyHunk struct {
	From int `json:"from"`
	To   int `json:"to"`
	// Commit is "" for lines not committed yet.
	Commit  string `json:"commit"`
	Summary string `json:"summary"`
	// Link is the commit's Ctxgit-Checkpoint trailer (its last one);
	// nil when it has none.
	Link *spec.CheckpointLink `json:"link"`
	// At is the checkpoint the link names, when this repository has it.
	At *WhyCheckpoint `json:"checkpoint"`
	// Note says why At is missing when Link is set.
	Note string `json:"note,omitempty"`
}

// WhyCheckpoint is what a checkpoint knew when the commit was made.
type WhyCheckpoint struct {
	Session      string `json:"session"`
	Title        string `json:"title"`
	CheckpointID string `json:"checkpoint_id"`
	Commit       string `json:"commit"`
	Instruction  string `json:"instruction"`
	PlanStep     string `json:"plan_step"`
	// Previous is the checkpoint before it: Decisions and Failures are
	// what was recorded from there to this one.
	Previous  string              `json:"previous_checkpoint"`
	Decisions []spec.Decision     `json:"decisions"`
	Failures  []spec.FailureEntry `json:"failures"`
}

// instructionLookback bounds how many earlier checkpoints why reads for
// the instruction in force.
const instructionLookback = 20

// notCommitted is git blame's commit id for lines not committed yet.
const notCommitted = "0000000000000000000000000000000000000000"

// Why blames the target's lines with the user's git, and follows each
// commit's Ctxgit-Checkpoint trailer to its checkpoint (docs/cli.md#why).
func Why(ctx context.Context, w *workspace.Workspace, t WhyTarget) (*WhyResult, error) {
	if w.Repo == nil {
		return nil, spec.Usage("why: the workspace is not in a git repository, so it has no commits to follow")
	}
	abs := t.Path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.Env.Cwd, abs)
	}
	rel, err := filepath.Rel(w.Repo.WorkTree, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, spec.Usage("why %s: the file is outside the repository %s", t.Path, w.Repo.WorkTree)
	}
	rel = filepath.ToSlash(rel)
	store, err := w.ReadStore()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, spec.NotFound("the workspace has no checkpoints")
	}
	// --no-textconv: the lines are the file's, as -L numbers them, and a
	// clone's .gitattributes does not choose a program of the user's
	// config (diff.*.textconv) to run on them.
	args := []string{"blame", "--porcelain", "--no-textconv"}
	if t.From > 0 {
		args = append(args, "-L", fmt.Sprintf("%d,%d", t.From, t.To))
	}
	var hunks []WhyHunk
	err = gitcmd.Stream(ctx, w.Repo.WorkTree, func(r io.Reader) (err error) {
		hunks, err = blameHunks(r)
		return err
	}, append(args, "--", rel)...)
	switch {
	case errors.Is(err, gitcmd.ErrNoGit):
		// No git here: the store blames as git would.
		head, herr := vcs.ReadHEAD(w.Repo.GitDir)
		if herr != nil || head.IsZero() {
			return nil, spec.NotFound("why %s: the repository's HEAD has no commit", t.Path)
		}
		if hunks, err = storeBlame(store, head, w.Repo.WorkTree, rel, t.From, t.To); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, spec.NotFound("why %s: %v", t.Path, err)
	}
	res := &WhyResult{Path: rel, Hunks: hunks}
	res.follow(w, store)
	return res, nil
}

// blameHunks groups git blame --porcelain output into runs of lines from
// one commit, as it is read: only the hunks are kept, and of each line
// only its start (a line of the file may be any length).
func blameHunks(porcelain io.Reader) ([]WhyHunk, error) {
	var hunks []WhyHunk
	var commit string
	var line int
	br := bufio.NewReaderSize(porcelain, 64<<10)
	for {
		text, err := br.ReadSlice('\n')
		switch {
		case len(text) == 0:
		case text[0] == '\t':
			n := len(hunks)
			if n > 0 && hunks[n-1].Commit == commit && hunks[n-1].To == line-1 {
				hunks[n-1].To = line
				break
			}
			hunks = append(hunks, WhyHunk{From: line, To: line, Commit: commit})
		default:
			if id, n, ok := blameHeader(text); ok {
				if string(id) != commit {
					commit = string(id)
				}
				line = n
			}
		}
		for err == bufio.ErrBufferFull { // the rest of a long line
			_, err = br.ReadSlice('\n')
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	for i := range hunks {
		if hunks[i].Commit == notCommitted {
			hunks[i].Commit = ""
		}
	}
	return hunks, nil
}

// blameHeader reads the line that opens each line's entry in git blame
// --porcelain, "<commit> <original line> <final line>[ <count>]": the
// commit and the final line number. It allocates nothing: a file of
// millions of lines has as many.
func blameHeader(text []byte) (id []byte, line int, ok bool) {
	if len(text) < 44 || text[40] != ' ' {
		return nil, 0, false
	}
	for _, c := range text[:40] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, 0, false
		}
	}
	rest := text[41:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return nil, 0, false
	}
	digits := 0
	for _, c := range rest[sp+1:] {
		if c < '0' || c > '9' {
			break
		}
		if line > 1<<40 {
			return nil, 0, false
		}
		line = line*10 + int(c-'0')
		digits++
	}
	return text[:40], line, digits > 0
}

// follow reads each commit's subject and trailers, and the checkpoints
// they name.
func (r *WhyResult) follow(w *workspace.Workspace, store vcs.Store) {
	at := map[spec.CheckpointLink]*WhyCheckpoint{}
	notes := map[spec.CheckpointLink]string{}
	for i := range r.Hunks {
		h := &r.Hunks[i]
		id, err := vcs.ParseHash(h.Commit)
		if err != nil {
			continue
		}
		c, err := vcs.ReadCommit(store, id)
		if err != nil {
			continue
		}
		h.Summary, _, _ = strings.Cut(strings.TrimSpace(c.Message), "\n")
		links := spec.ParseTrailers(c.Message)
		if len(links) == 0 {
			continue
		}
		link := links[len(links)-1]
		h.Link = &link
		if _, done := at[link]; !done && notes[link] == "" {
			cp, err := whyCheckpoint(w, link)
			if err != nil {
				notes[link] = err.Error()
			}
			at[link] = cp
		}
		h.At, h.Note = at[link], notes[link]
	}
}

// whyCheckpoint reads the checkpoint a link names, and what was recorded
// since the one before it.
func whyCheckpoint(w *workspace.Workspace, link spec.CheckpointLink) (*WhyCheckpoint, error) {
	cur, err := linkedCheckpoint(w, link)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s is not in this repository (a teammate's session? ctxgit fetch REMOTE brings it)", link)
	}
	cp := cur.Checkpoint
	out := &WhyCheckpoint{Session: cur.Session, Title: workspace.NamesOf(w, cur).Title, CheckpointID: cp.Meta.CheckpointID,
		Commit: cur.Commit.String(), Instruction: string(cp.Thread.LatestPrompt), PlanStep: string(cp.Plan.CurrentStep),
		Previous: cp.Meta.PreviousCheckpoint, Decisions: []spec.Decision{}, Failures: []spec.FailureEntry{}}
	var prev *workspace.Resolved
	if cp.Meta.PreviousCheckpoint != "" {
		if prev, err = w.ResolveRead(cp.Meta.PreviousCheckpoint, cur.Session); err != nil {
			prev = nil
		}
	}
	// A checkpoint taken without the transcript (the commit hook's) knows
	// no instruction: the one in force is the newest an earlier one saw.
	for back, at := 0, prev; out.Instruction == "" && at != nil && back < instructionLookback; back++ {
		out.Instruction = string(at.Checkpoint.Thread.LatestPrompt)
		if p := at.Checkpoint.Meta.PreviousCheckpoint; p != "" {
			if at, err = w.ResolveRead(p, cur.Session); err != nil {
				break
			}
		} else {
			break
		}
	}
	d, err := DiffCheckpoints(w, prev, cur, DiffOptions{Semantic: true})
	if err != nil {
		return nil, err
	}
	for _, c := range d.Decisions {
		if c.Change == ChangeAdded {
			out.Decisions = append(out.Decisions, c.Decision)
		}
	}
	for _, c := range d.Failures {
		if c.Change == ChangeAdded {
			out.Failures = append(out.Failures, c.FailureEntry)
		}
	}
	return out, nil
}
