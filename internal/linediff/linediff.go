// Package linediff counts the lines added and removed between two texts, as a
// minimal line diff (Myers) would, for `ctxgit diff` and `ctxgit report`
// (docs/design.md, "Diff and report"). It only counts: no edit script is kept,
// so memory stays small whatever the size of the texts.
package linediff

import "bytes"

// BinarySniff is how many leading bytes are searched for a NUL byte to call
// a blob binary: git's own heuristic, so the two agree on which files have
// lines.
const BinarySniff = 8000

// DefaultBudget bounds the work of one minimal diff (diagonal and snake
// steps). A budget of 2^24 keeps the worst case near a tenth of a second;
// past it, Count estimates instead.
const DefaultBudget = 1 << 24

// IsBinary reports whether data holds a NUL byte in its first BinarySniff
// bytes.
func IsBinary(data []byte) bool {
	if len(data) > BinarySniff {
		data = data[:BinarySniff]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// Lines counts the lines of data: newline-terminated lines plus an
// unterminated last line, as git counts them.
func Lines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// Counts is the result of Count.
type Counts struct {
	Added, Removed int
	// Exact is false when the minimal diff cost more than the budget and
	// the counts are an estimate (a lower bound that ignores moves).
	Exact bool
}

// Count counts the lines added and removed from a to b, with DefaultBudget.
func Count(a, b []byte) Counts { return CountBudget(a, b, DefaultBudget) }

// CountBudget is Count with a work budget. A line includes its newline, so
// a last line that gains or loses its newline counts as changed, as in git.
func CountBudget(a, b []byte, budget int) Counts {
	la, lb := split(a), split(b)
	n, m := len(la), len(lb)

	// A common prefix and suffix are part of some longest common
	// subsequence: trim them before the quadratic part.
	pre := 0
	for pre < n && pre < m && bytes.Equal(la[pre], lb[pre]) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && bytes.Equal(la[n-1-suf], lb[m-1-suf]) {
		suf++
	}
	ia, ib := intern(la[pre:n-suf], lb[pre:m-suf])

	// A line that does not occur on the other side can never be matched:
	// dropping such lines leaves the longest common subsequence as it is,
	// and a rewritten file then costs almost nothing (xdiff does the same).
	ca, cb := counts(ia), counts(ib)
	ra := keep(ia, cb)
	rb := keep(ib, ca)

	lcs, ok := lcsLen(ra, rb, budget)
	if !ok {
		// The estimate: lines whose count differs between the sides.
		// It is exact unless lines moved, and never more than the truth.
		added, removed := 0, 0
		for id := range max(len(ca), len(cb)) {
			x, y := at(ca, id), at(cb, id)
			if y > x {
				added += y - x
			} else {
				removed += x - y
			}
		}
		return Counts{Added: added, Removed: removed}
	}
	common := pre + suf + lcs
	return Counts{Added: m - common, Removed: n - common, Exact: true}
}

// Split cuts data into lines, each with its newline; a last line without
// one is a line too.
func Split(data []byte) [][]byte { return split(data) }

func split(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, data)
			break
		}
		lines = append(lines, data[:i+1])
		data = data[i+1:]
	}
	return lines
}

// intern maps equal lines to equal small integers, so the diff compares
// integers rather than bytes.
func intern(a, b [][]byte) ([]int, []int) {
	ids := make(map[string]int, len(a)+len(b))
	conv := func(lines [][]byte) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[string(l)]
			if !ok {
				id = len(ids)
				ids[string(l)] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

func counts(ids []int) []int {
	var c []int
	for _, id := range ids {
		for id >= len(c) {
			c = append(c, 0)
		}
		c[id]++
	}
	return c
}

func at(c []int, id int) int {
	if id < len(c) {
		return c[id]
	}
	return 0
}

func keep(ids, other []int) []int {
	out := make([]int, 0, len(ids))
	for _, id := range ids {
		if at(other, id) > 0 {
			out = append(out, id)
		}
	}
	return out
}

// lcsLen returns the length of a longest common subsequence of a and b by
// Myers' greedy forward search for the shortest edit script D (insertions
// and deletions only, so LCS = (N+M-D)/2). It gives up, returning false,
// once its work passes budget.
func lcsLen(a, b []int, budget int) (int, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return 0, true
	}
	// Round d costs at least d+1 steps, so the budget bounds D and with
	// it the diagonals that can be reached.
	maxD := n + m
	for d, spent := 0, 0; d <= maxD; d++ {
		spent += d + 1
		if spent > budget {
			maxD = d
			break
		}
	}
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	work := 0
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			x0 := x
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			work += x - x0 + 1
			v[off+k] = x
			if x >= n && y >= m {
				return (n + m - d) / 2, true
			}
		}
		if work > budget {
			return 0, false
		}
	}
	return 0, false
}
