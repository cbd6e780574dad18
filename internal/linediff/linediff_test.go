package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// docs/design.md, "Diff and report": counts are those of a minimal line diff; a
// line includes its newline.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		name         string
		a, b         string
		added, remov int
	}{
		{"both empty", "", "", 0, 0},
		{"added file", "", "a\nb\n", 2, 0},
		{"deleted file", "a\nb\nc", "", 0, 3},
		{"same", "a\nb\n", "a\nb\n", 0, 0},
		{"one changed", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"append", "a\n", "a\nb\nc\n", 2, 0},
		{"prepend", "c\n", "a\nb\nc\n", 2, 0},
		{"delete middle", "a\nb\nc\n", "a\nc\n", 0, 1},
		{"newline at end added", "a\nb", "a\nb\n", 1, 1},
		{"crlf differs", "a\r\n", "a\n", 1, 1},
		{"rewrite", "a\nb\nc\n", "x\ny\n", 2, 3},
		{"swap", "a\nb\n", "b\na\n", 1, 1},
		{"repeated lines", "x\nx\nx\ny\n", "x\ny\nx\nx\n", 1, 1},
		{"interleaved", "a\nb\nc\nd\ne\n", "a\nc\nb\ne\nd\n", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Count([]byte(tc.a), []byte(tc.b))
			if got.Added != tc.added || got.Removed != tc.remov || !got.Exact {
				t.Errorf("Count = %+v, want +%d -%d exact", got, tc.added, tc.remov)
			}
		})
	}
}

// lcsDP is the textbook quadratic LCS, the reference for the fast one.
func lcsDP(a, b [][]byte) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case bytes.Equal(a[i-1], b[j-1]):
				cur[j] = prev[j-1] + 1
			case prev[j] > cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randomText(r *rand.Rand, n, alphabet int) []byte {
	var b bytes.Buffer
	for range n {
		fmt.Fprintf(&b, "line %d\n", r.IntN(alphabet))
	}
	if r.IntN(4) == 0 && b.Len() > 0 {
		b.Truncate(b.Len() - 1) // no newline at the end
	}
	return b.Bytes()
}

// The fast count agrees with the quadratic reference on random texts with
// many repeated lines, the hard case for the shortcuts it takes.
func TestCountMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		a := randomText(r, r.IntN(40), 1+r.IntN(8))
		b := randomText(r, r.IntN(40), 1+r.IntN(8))
		lcs := lcsDP(split(a), split(b))
		want := Counts{Added: len(split(b)) - lcs, Removed: len(split(a)) - lcs, Exact: true}
		if got := Count(a, b); got != want {
			t.Fatalf("case %d: Count(%q, %q) = %+v, want %+v", i, a, b, got, want)
		}
	}
}

// Past the budget the counts are an estimate, marked so, and still add up:
// added - removed is the change in line count.
func TestCountBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := randomText(r, 3000, 50)
	b := randomText(r, 3000, 50)
	got := CountBudget(a, b, 1000)
	if got.Exact {
		t.Fatalf("CountBudget with a tiny budget = %+v, want an estimate", got)
	}
	if got.Added-got.Removed != Lines(b)-Lines(a) {
		t.Errorf("estimate %+v does not add up to %d - %d lines", got, Lines(b), Lines(a))
	}
	exact := Count(a, b)
	if !exact.Exact || got.Added > exact.Added || got.Removed > exact.Removed {
		t.Errorf("estimate %+v is not a lower bound of %+v", got, exact)
	}
}

// A large rewrite stays fast: lines found on one side only are set aside
// before the quadratic part.
func TestCountLargeRewrite(t *testing.T) {
	var a, b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
		if i%1000 == 0 {
			a.WriteString("shared\n")
			b.WriteString("shared\n")
		}
	}
	// Lines found on one side only are dropped before the search, so a
	// rewrite stays exact within a budget far below its 400,000 lines:
	// the cost is the work counter, not a wall clock under load.
	got := CountBudget([]byte(a.String()), []byte(b.String()), 1<<12)
	if !got.Exact || got.Added != 200000 || got.Removed != 200000 {
		t.Errorf("CountBudget(1<<12) = %+v, want +200000 -200000 exact", got)
	}
}

func BenchmarkCountLargeRewrite(b *testing.B) {
	var x, y strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&x, "old %d\n", i)
		fmt.Fprintf(&y, "new %d\n", i)
		if i%1000 == 0 {
			x.WriteString("shared\n")
			y.WriteString("shared\n")
		}
	}
	xb, yb := []byte(x.String()), []byte(y.String())
	b.ResetTimer()
	for b.Loop() {
		Count(xb, yb)
	}
}

func TestLinesAndBinary(t *testing.T) {
	for _, tc := range []struct {
		in    string
		lines int
	}{{"", 0}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"\n\n", 2}} {
		if got := Lines([]byte(tc.in)); got != tc.lines {
			t.Errorf("Lines(%q) = %d, want %d", tc.in, got, tc.lines)
		}
	}
	if IsBinary([]byte("text\n")) || !IsBinary([]byte("a\x00b")) {
		t.Error("IsBinary misjudges a NUL byte")
	}
	late := append(bytes.Repeat([]byte("x"), BinarySniff), 0)
	if IsBinary(late) {
		t.Error("a NUL byte past the first 8000 bytes made the file binary (git reads only those)")
	}
}

func FuzzCount(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nc\nd"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 2000 || len(b) > 2000 {
			return
		}
		lcs := lcsDP(split(a), split(b))
		want := Counts{Added: len(split(b)) - lcs, Removed: len(split(a)) - lcs, Exact: true}
		if got := Count(a, b); got != want {
			t.Fatalf("Count(%q, %q) = %+v, want %+v", a, b, got, want)
		}
	})
}

func BenchmarkCount(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randomText(r, 5000, 2000)
	y := append(append([]byte{}, x[:len(x)/2]...), randomText(r, 50, 2000)...)
	y = append(y, x[len(x)/2:]...)
	for b.Loop() {
		Count(x, y)
	}
}
