package review

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctxgit/ctxgit/internal/linediff"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// PatchContext is the number of unchanged lines shown around a change, as
// git's default.
const PatchContext = 3

// PatchPart names a kind of patch line, for colour.
type PatchPart int

// The parts of a patch a caller may paint.
const (
	PatchMeta      PatchPart = iota // diff --git, index, mode, ---/+++ lines
	PatchHunk                       // @@ … @@
	PatchRemoved                    // -line
	PatchAdded                      // +line
	PatchUnchanged                  // a line of context
)

// PatchOptions are how WritePatch writes.
type PatchOptions struct {
	// Paint, when set, dresses a line (without its newline) of a part.
	Paint func(part PatchPart, line string) string
}

// WritePatch writes the unified patch of the workspace's files from one
// checkpoint to another (from nil: everything in to is new), in git's
// format (`git diff` with three lines of context), leaving out ctxgit's
// own outputs. It needs no git. A binary file is named, not shown; a
// modified file over MaxLineDiffBytes is named as too large; a diff past
// linediff's work bound is still a correct patch, only a longer one.
func WritePatch(w *workspace.Workspace, out io.Writer, from, to *workspace.Resolved, o PatchOptions) error {
	store, err := w.ReadStore()
	if err != nil {
		return err
	}
	if store == nil {
		return spec.NotFound("the workspace has no checkpoints")
	}
	var fromID vcs.Hash
	if from != nil {
		fromID = from.Commit
	}
	changes, err := w.Changes(fromID, to.Commit)
	if err != nil {
		return err
	}
	return writePatch(out, store, changes, o)
}

type patchWriter struct {
	w     *bufio.Writer
	paint func(PatchPart, string) string
}

func (p *patchWriter) line(part PatchPart, s string) {
	p.w.WriteString(p.paint(part, s))
	p.w.WriteByte('\n')
}

// change writes one file's header and hunks.
func (p *patchWriter) change(store vcs.Store, c vcs.Change) error {
	oldPath, newPath := c.Path, c.Path
	if c.From != "" {
		oldPath = c.From
	}
	oldName, newName := "a/"+patchPath(oldPath), "b/"+patchPath(newPath)
	p.line(PatchMeta, "diff --git "+oldName+" "+newName)
	switch {
	case c.OldID.IsZero():
		p.line(PatchMeta, fmt.Sprintf("new file mode %06o", c.NewMode))
	case c.NewID.IsZero():
		p.line(PatchMeta, fmt.Sprintf("deleted file mode %06o", c.OldMode))
	default:
		if c.OldMode != c.NewMode {
			p.line(PatchMeta, fmt.Sprintf("old mode %06o", c.OldMode))
			p.line(PatchMeta, fmt.Sprintf("new mode %06o", c.NewMode))
		}
		if c.From != "" && c.OldID == c.NewID {
			p.line(PatchMeta, "similarity index 100%")
			p.line(PatchMeta, "rename from "+patchPath(oldPath))
			p.line(PatchMeta, "rename to "+patchPath(newPath))
		}
	}
	if c.OldID == c.NewID {
		return nil // a rename or a mode change: no content differs
	}
	index := "index " + shortID(c.OldID) + ".." + shortID(c.NewID)
	if !c.OldID.IsZero() && !c.NewID.IsZero() && c.OldMode == c.NewMode {
		index += fmt.Sprintf(" %06o", c.NewMode)
	}
	p.line(PatchMeta, index)
	a, err := patchSide(store, c.OldID, c.OldMode)
	if err != nil {
		return err
	}
	b, err := patchSide(store, c.NewID, c.NewMode)
	if err != nil {
		return err
	}
	if c.OldID.IsZero() {
		oldName = "/dev/null"
	}
	if c.NewID.IsZero() {
		newName = "/dev/null"
	}
	switch {
	case linediff.IsBinary(a) || linediff.IsBinary(b):
		p.line(PatchMeta, "Binary files "+oldName+" and "+newName+" differ")
		return nil
	case len(a) > MaxLineDiffBytes || len(b) > MaxLineDiffBytes:
		p.line(PatchMeta, fmt.Sprintf("Not shown: %s or %s is over %d MiB", oldName, newName, MaxLineDiffBytes>>20))
		return nil
	}
	p.line(PatchMeta, "--- "+oldName)
	p.line(PatchMeta, "+++ "+newName)
	p.hunks(linediff.Split(a), linediff.Split(b))
	return nil
}

// patchSide is one side's content: a blob's bytes, git's one line for a
// submodule, nothing for a side that does not exist.
func patchSide(store vcs.Store, id vcs.Hash, mode uint32) ([]byte, error) {
	switch {
	case id.IsZero():
		return nil, nil
	case mode == vcs.ModeGitlink:
		return []byte("Subproject commit " + id.String() + "\n"), nil
	}
	return vcs.ReadBlob(store, id)
}

func shortID(h vcs.Hash) string {
	if h.IsZero() {
		return "0000000"
	}
	return h.Short()
}

// patchPath is a path as a patch header shows it: control and invisible
// characters made visible, as every path ctxgit prints.
func patchPath(p string) string { return safetext.Path(p) }

// An edit is one line of the script: ' ', '-' or '+', and the line.
type edit struct {
	op   byte
	line []byte
	// ai and bi are the line's index on each side (the next line's, on
	// the side it is not on).
	ai, bi int
}

// script is a line edit script from a to b along linediff.Match's
// pairing: in each run of changes, removed lines before added ones, as
// git prints them.
func script(a, b [][]byte) []edit {
	match := linediff.Match(a, b, linediff.DefaultBudget)
	var out []edit
	i, j := 0, 0
	for {
		nj := j
		for nj < len(b) && match[nj] < 0 {
			nj++
		}
		ni := len(a)
		if nj < len(b) {
			ni = match[nj]
		}
		for ; i < ni; i++ {
			out = append(out, edit{'-', a[i], i, j})
		}
		for ; j < nj; j++ {
			out = append(out, edit{'+', b[j], i, j})
		}
		if nj == len(b) {
			return out
		}
		out = append(out, edit{' ', a[i], i, j})
		i, j = i+1, j+1
	}
}

// hunks writes the changes between a and b with PatchContext lines of
// context, hunks closer than twice that joined.
func (p *patchWriter) hunks(a, b [][]byte) {
	e := script(a, b)
	for start := 0; start < len(e); {
		first := start
		for first < len(e) && e[first].op == ' ' {
			first++
		}
		if first == len(e) {
			return
		}
		lo := max(first-PatchContext, start)
		// The hunk runs until PatchContext*2 unchanged lines in a row (or
		// the end) follow its last change.
		last, k := first, first
		for k < len(e) {
			if e[k].op != ' ' {
				last = k
			} else if k-last > 2*PatchContext {
				break
			}
			k++
		}
		hi := min(last+PatchContext+1, len(e))
		p.hunk(a, b, e[lo:hi])
		start = hi
	}
}

func (p *patchWriter) hunk(a, b [][]byte, e []edit) {
	var na, nb int
	for _, x := range e {
		if x.op != '+' {
			na++
		}
		if x.op != '-' {
			nb++
		}
	}
	p.line(PatchHunk, fmt.Sprintf("@@ -%s +%s @@", hunkRange(e[0].ai, na), hunkRange(e[0].bi, nb)))
	for _, x := range e {
		text := strings.TrimSuffix(string(x.line), "\n")
		switch x.op {
		case '-':
			p.line(PatchRemoved, "-"+text)
		case '+':
			p.line(PatchAdded, "+"+text)
		default:
			p.line(PatchUnchanged, " "+text)
		}
		if len(x.line) == 0 || x.line[len(x.line)-1] != '\n' {
			p.w.WriteString("\\ No newline at end of file\n")
		}
	}
}

// hunkRange is a hunk header's side: a 1-based start and a count, the
// count left out when 1, and for an empty side the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// Patches in the HTML report are bounded: a file's past maxFilePatch
// bytes, and all of them past maxReportPatches, are left out with a
// note.
const (
	maxFilePatch     = 256 << 10
	maxReportPatches = 4 << 20
)

// fillPatches sets each listed file's Patch, within the bounds.
func (r *Report) fillPatches() {
	budget := maxReportPatches
	for _, list := range [][]FileDiff{r.Files, r.Uncommitted} {
		for i := range list {
			f := &list[i]
			if f.src == nil {
				continue
			}
			var b strings.Builder
			p := &patchWriter{w: bufio.NewWriter(&b), paint: func(_ PatchPart, s string) string { return s }}
			err := p.change(f.src.store, f.src.change)
			p.w.Flush()
			switch {
			case err != nil:
				f.Patch = "(the patch could not be read: " + safetext.Line(err.Error()) + ")"
			case b.Len() > maxFilePatch || b.Len() > budget:
				f.Patch = fmt.Sprintf("(a patch of %d bytes: too long for the page)", b.Len())
			default:
				f.Patch = b.String()
				budget -= b.Len()
			}
		}
	}
}
