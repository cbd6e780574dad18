package review

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/vcs"
)

// TestStoreBlameAgreesWithGit blames a file with a history of random edits
// (and an uncommitted one) through the store and through git, line by
// line. Every line's text is unique, so there is one right answer.
func TestStoreBlameAgreesWithGit(t *testing.T) {
	wstest.NeedGit(t)
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	r := rand.New(rand.NewPCG(7, 9))
	serial := 0
	newLine := func() string { serial++; return fmt.Sprintf("line %d", serial) }
	var lines []string
	for range 30 {
		lines = append(lines, newLine())
	}
	write := func() {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for c := range 25 {
		for range 1 + r.IntN(4) {
			i := r.IntN(len(lines))
			switch r.IntN(3) {
			case 0:
				lines[i] = newLine()
			case 1:
				lines = append(lines[:i], append([]string{newLine()}, lines[i:]...)...)
			default:
				if len(lines) > 5 {
					lines = append(lines[:i], lines[i+1:]...)
				}
			}
		}
		write()
		if c%7 == 3 { // a commit that leaves the file alone
			if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte(newLine()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("c%d", c))
	}
	lines[3] = newLine() // not committed
	write()

	store, err := vcs.OpenGit(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := vcs.ReadHEAD(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	perLine := func(h []WhyHunk) []string {
		var out []string
		for _, x := range h {
			for range x.To - x.From + 1 {
				out = append(out, x.Commit)
			}
		}
		return out
	}
	for _, rng := range [][2]int{{0, 0}, {3, 9}, {4, 4}} {
		args := []string{"blame", "--porcelain"}
		if rng[0] > 0 {
			args = append(args, "-L", fmt.Sprintf("%d,%d", rng[0], rng[1]))
		}
		gitHunks, err := blameHunks(strings.NewReader(git(append(args, "--", "f.txt")...)))
		if err != nil {
			t.Fatal(err)
		}
		want := perLine(gitHunks)
		hunks, err := storeBlame(store, head, dir, "f.txt", rng[0], rng[1])
		if err != nil {
			t.Fatal(err)
		}
		got := perLine(hunks)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("lines %v: store blame\n%v\ngit blame\n%v", rng, got, want)
		}
	}
	if _, err := storeBlame(store, head, dir, "f.txt", 1, 9999); err == nil {
		t.Error("a range past the file's end: no error")
	}
}
