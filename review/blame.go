package review

import (
	"os"
	"path/filepath"

	"github.com/ctxgit/ctxgit/internal/linediff"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// maxBlameCommits bounds how far back a blame without git walks; lines
// still unclaimed there are given to the oldest commit it read.
const maxBlameCommits = 5000

// maxBlameFile bounds the file storeBlame reads from disk.
const maxBlameFile = 64 << 20

// readWorktree reads the file rel as git blame reads it from the working
// tree: a symlink as its target's path (never followed), a regular file
// within maxBlameFile, and nothing beyond a directory that is a link or
// on a FIFO (the file rule, SPEC §3.4).
func readWorktree(worktree, rel string) ([]byte, error) {
	if err := regfile.Dirs(worktree, rel, false); err != nil {
		return nil, err
	}
	path := filepath.Join(worktree, filepath.FromSlash(rel))
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		return []byte(filepath.ToSlash(target)), err
	}
	return regfile.ReadFile(path, maxBlameFile)
}

// storeBlame is `git blame` where there is no git: each line of the file
// on disk (lines from..to, 1-based; 0 for all) is given to the commit that
// last changed it, following first parents from head; a line the disk has
// and head's version does not is not committed yet (commit ""). Lines are
// paired between versions along a shortest edit script, as git pairs them.
func storeBlame(store vcs.Store, head vcs.Hash, worktree, rel string, from, to int) ([]WhyHunk, error) {
	disk, err := readWorktree(worktree, rel)
	if err != nil {
		return nil, spec.NotFound("why %s: %v", rel, err)
	}
	all := linediff.Split(disk)
	if from == 0 {
		from, to = 1, len(all)
	}
	if to > len(all) {
		return nil, spec.NotFound("why %s: the file has %d lines", rel, len(all))
	}
	n := to - from + 1
	owner := make([]string, n)
	pos := make([]int, n) // each asked line's index in cur's version
	for i := range pos {
		pos[i] = from - 1 + i
	}
	cur, curLines := vcs.ZeroHash, all // the disk is the newest "version"
	next, nextBlob, err := blobAt(store, head, rel)
	if err != nil {
		return nil, err
	}
	left := n
	for steps := 0; left > 0; steps++ {
		var nextLines [][]byte
		if !next.IsZero() && !nextBlob.IsZero() {
			data, err := vcs.ReadBlob(store, nextBlob)
			if err != nil {
				return nil, err
			}
			nextLines = linediff.Split(data)
		}
		match := linediff.Match(nextLines, curLines, linediff.DefaultBudget)
		for i := range pos {
			if owner[i] != "" || pos[i] < 0 {
				continue
			}
			if p := match[pos[i]]; p >= 0 && !next.IsZero() && steps < maxBlameCommits {
				pos[i] = p
				continue
			}
			owner[i], pos[i] = commitName(cur), -1
			left--
		}
		if next.IsZero() || left == 0 {
			break
		}
		c, err := vcs.ReadCommit(store, next)
		if err != nil {
			return nil, err
		}
		cur, curLines = next, nextLines
		next, nextBlob = vcs.ZeroHash, vcs.ZeroHash
		if len(c.Parents) > 0 {
			if next, nextBlob, err = blobAt(store, c.Parents[0], rel); err != nil {
				return nil, err
			}
		}
		// A parent with the same blob changes nothing: skip the diff.
		for !next.IsZero() && nextBlob == blobOf(store, cur, rel) {
			pc, err := vcs.ReadCommit(store, next)
			if err != nil {
				return nil, err
			}
			cur = next
			if len(pc.Parents) == 0 {
				next = vcs.ZeroHash
				break
			}
			if next, nextBlob, err = blobAt(store, pc.Parents[0], rel); err != nil {
				return nil, err
			}
		}
	}
	var hunks []WhyHunk
	for i, o := range owner {
		line := from + i
		if k := len(hunks); k > 0 && hunks[k-1].Commit == o && hunks[k-1].To == line-1 {
			hunks[k-1].To = line
			continue
		}
		hunks = append(hunks, WhyHunk{From: line, To: line, Commit: o})
	}
	return hunks, nil
}

func commitName(id vcs.Hash) string {
	if id.IsZero() {
		return ""
	}
	return id.String()
}

// blobAt is commit id and the blob of rel in it (zero when absent).
func blobAt(store vcs.Store, id vcs.Hash, rel string) (vcs.Hash, vcs.Hash, error) {
	c, err := vcs.ReadCommit(store, id)
	if err != nil {
		return vcs.ZeroHash, vcs.ZeroHash, err
	}
	e, err := vcs.Lookup(store, c.Tree, rel)
	if err != nil || e.IsDir() {
		return id, vcs.ZeroHash, nil
	}
	return id, e.ID, nil
}

func blobOf(store vcs.Store, id vcs.Hash, rel string) vcs.Hash {
	_, b, err := blobAt(store, id, rel)
	if err != nil {
		return vcs.ZeroHash
	}
	return b
}
