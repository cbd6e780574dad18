package linediff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func lines(s string) [][]byte {
	if s == "" {
		return nil
	}
	var out [][]byte
	for _, l := range strings.Split(s, " ") {
		out = append(out, []byte(l+"\n"))
	}
	return out
}

// checkMatch holds Match to its contract: pairs in order, of equal lines,
// and as many as a longest common subsequence has.
func checkMatch(t *testing.T, a, b [][]byte) {
	t.Helper()
	out := Match(a, b, DefaultBudget)
	last, pairs := -1, 0
	for j, i := range out {
		if i < 0 {
			continue
		}
		pairs++
		if i <= last || string(a[i]) != string(b[j]) {
			t.Fatalf("Match(%q, %q) = %v: pair %d→%d out of order or unequal", a, b, out, j, i)
		}
		last = i
	}
	ia, ib := intern(a, b)
	if want, _ := lcsLen(ia, ib, DefaultBudget); pairs != want {
		t.Fatalf("Match(%q, %q) = %v: %d pairs, the LCS has %d", a, b, out, pairs, want)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range [][2]string{
		{"", ""}, {"a", ""}, {"", "a"}, {"a b c", "a b c"}, {"a b c", "a x c"},
		{"a b c a b b a", "c b a b a c"}, {"x a b", "a b y"}, {"a a a", "a"}, {"a b", "b a"},
	} {
		checkMatch(t, lines(tc[0]), lines(tc[1]))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		gen := func() [][]byte {
			var l []string
			for range r.IntN(30) {
				l = append(l, string(rune('a'+r.IntN(5))))
			}
			return lines(strings.Join(l, " "))
		}
		checkMatch(t, gen(), gen())
	}
}

func TestMatchPastBudget(t *testing.T) {
	// Past the budget only the common ends are paired.
	out := Match(lines("p a b c s"), lines("p c b a s"), 1)
	want := []int{0, -1, -1, -1, 4}
	for j := range want {
		if out[j] != want[j] {
			t.Fatalf("Match past budget = %v, want %v", out, want)
		}
	}
}
