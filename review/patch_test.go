package review

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/linediff"
	"github.com/ctxgit/ctxgit/vcs"
)

// patchOf writes one change's patch from blobs of the given contents
// (nil: keep the change's id for that side).
func patchOf(t *testing.T, c vcs.Change, a, b []byte) string {
	t.Helper()
	s := vcs.NewMemStore()
	put := func(data []byte, id *vcs.Hash) {
		if data == nil {
			return
		}
		h, err := s.WriteObject(vcs.BlobObject, data)
		if err != nil {
			t.Fatal(err)
		}
		*id = h
	}
	put(a, &c.OldID)
	put(b, &c.NewID)
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	p := &patchWriter{w: w, paint: func(_ PatchPart, s string) string { return s }}
	if err := p.change(s, c); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return out.String()
}

// docs/cli.md#diff: the cases diff_patch.txtar does not compare with git:
// a file emptied, a file over the size bound, hunks exactly six and seven
// unchanged lines apart.
func TestPatchCases(t *testing.T) {
	modified := vcs.Change{Path: "f", Status: "M", OldMode: vcs.ModeFile, NewMode: vcs.ModeFile}
	got := patchOf(t, modified, []byte("x\n"), []byte{})
	if want := "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n"; !strings.HasSuffix(got, want) {
		t.Errorf("emptied file:\n%s\nwant the end:\n%s", got, want)
	}

	big := bytes.Repeat([]byte("line\n"), MaxLineDiffBytes/5+1)
	got = patchOf(t, modified, big, append([]byte("first\n"), big...))
	if !strings.Contains(got, "Not shown: a/f or b/f is over 8 MiB\n") || strings.Contains(got, "@@") {
		t.Errorf("a file over the bound:\n%.300s", got)
	}

	lines := func(change ...int) []byte {
		var b strings.Builder
		for i := 1; i <= 30; i++ {
			fmt.Fprintf(&b, "%d", i)
			for _, c := range change {
				if c == i {
					b.WriteString("x")
				}
			}
			b.WriteString("\n")
		}
		return []byte(b.String())
	}
	// Lines 5 and 12 changed: six unchanged between them, one hunk (as
	// git joins them); 5 and 13: seven, two hunks.
	if got := patchOf(t, modified, lines(), lines(5, 12)); strings.Count(got, "@@ -") != 1 || !strings.Contains(got, "@@ -2,14 +2,14 @@\n") {
		t.Errorf("changes six lines apart:\n%s", got)
	}
	if got := patchOf(t, modified, lines(), lines(5, 13)); strings.Count(got, "@@ -") != 2 ||
		!strings.Contains(got, "@@ -2,7 +2,7 @@\n") || !strings.Contains(got, "@@ -10,7 +10,7 @@\n") {
		t.Errorf("changes seven lines apart:\n%s", got)
	}

	sub := vcs.Change{Path: "lib", Status: "M", OldMode: vcs.ModeGitlink, NewMode: vcs.ModeGitlink,
		OldID: vcs.Hash{1}, NewID: vcs.Hash{2}}
	got = patchOf(t, sub, nil, nil)
	if !strings.Contains(got, "-Subproject commit 01000000") || !strings.Contains(got, "+Subproject commit 02000000") {
		t.Errorf("submodule:\n%s", got)
	}
}

// The edit script, whatever the pairing (past the work budget too),
// gives back both sides: removed and unchanged lines are a, added and
// unchanged lines are b.
func TestPatchScriptRebuildsBothSides(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	for round := range 200 {
		gen := func() [][]byte {
			n := r.IntN(40)
			out := make([][]byte, n)
			for i := range out {
				out[i] = []byte(fmt.Sprintf("%d\n", r.IntN(6)))
			}
			return out
		}
		a, b := gen(), gen()
		var gotA, gotB [][]byte
		for _, e := range script(a, b) {
			if e.op != '+' {
				gotA = append(gotA, e.line)
			}
			if e.op != '-' {
				gotB = append(gotB, e.line)
			}
		}
		if !bytes.Equal(bytes.Join(gotA, nil), bytes.Join(a, nil)) || !bytes.Equal(bytes.Join(gotB, nil), bytes.Join(b, nil)) {
			t.Fatalf("round %d: the script does not rebuild both sides", round)
		}
	}
	// Past the budget the middle is unpaired: still both sides.
	a := linediff.Split(bytes.Repeat([]byte("a\nb\n"), 3000))
	b := linediff.Split(bytes.Repeat([]byte("b\na\n"), 3000))
	var na, nb int
	for _, e := range script(a, b) {
		if e.op != '+' {
			na++
		}
		if e.op != '-' {
			nb++
		}
	}
	if na != len(a) || nb != len(b) {
		t.Fatalf("a large rewrite: %d and %d lines, want %d and %d", na, nb, len(a), len(b))
	}
}
