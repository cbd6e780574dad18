package linediff

// Match pairs the lines of b with equal lines of a along a shortest edit
// script (Myers), as a blame follows lines from a file to its parent's
// version: out[j] is the index in a of b's line j, or -1 when line j was
// added. Pairs keep their order. The common prefix and suffix are paired
// first; past budget, the middle is left unpaired (every line there counts
// as added), as a bounded blame would rather blame too recent a commit
// than run without end.
func Match(a, b [][]byte, budget int) []int {
	out := make([]int, len(b))
	for j := range out {
		out[j] = -1
	}
	pre := 0
	for pre < len(a) && pre < len(b) && string(a[pre]) == string(b[pre]) {
		out[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && string(a[len(a)-1-suf]) == string(b[len(b)-1-suf]) {
		out[len(b)-1-suf] = len(a) - 1 - suf
		suf++
	}
	ia, ib := intern(a[pre:len(a)-suf], b[pre:len(b)-suf])
	for _, p := range matchIDs(ia, ib, budget) {
		out[pre+p[1]] = pre + p[0]
	}
	return out
}

// matchIDs is Myers' forward search keeping each round's diagonals, then a
// walk back from the end that collects the snakes: the pairs (i, j) with
// a[i] == b[j] on one shortest edit script. Nil past budget.
func matchIDs(a, b []int, budget int) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	var trace [][]int // trace[d][k+d] is the furthest x on diagonal k in round d
	work := 0
	for d := 0; d <= n+m; d++ {
		v := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			switch {
			case d == 0:
				x = 0
			case k == -d || (k != d && trace[d-1][k-1+d-1] < trace[d-1][k+1+d-1]):
				x = trace[d-1][k+1+d-1] // down: b[y] inserted
			default:
				x = trace[d-1][k-1+d-1] + 1 // right: a[x] deleted
			}
			y := x - k
			x0 := x
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			work += x - x0 + 1
			v[k+d] = x
			if x >= n && y >= m {
				trace = append(trace, v)
				return backtrack(trace, n, m)
			}
		}
		trace = append(trace, v)
		if work += 2*d + 1; work > budget {
			return nil
		}
	}
	return nil
}

func backtrack(trace [][]int, n, m int) [][2]int {
	var pairs [][2]int
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		prev := trace[d-1]
		pk := k - 1
		if k == -d || (k != d && prev[k-1+d-1] < prev[k+1+d-1]) {
			pk = k + 1
		}
		px := prev[pk+d-1]
		py := px - pk
		// The snake of round d starts after the edit from (px, py).
		sx := px
		if pk == k-1 {
			sx = px + 1
		}
		for x > sx {
			x--
			y--
			pairs = append(pairs, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		pairs = append(pairs, [2]int{x, y})
	}
	return pairs
}
