package review_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/review"
	"github.com/ctxgit/ctxgit/workspace"
)

// whyRepo is a repository with one commit of the files given and a
// checkpoint, opened as a workspace; HOME is a folder of the test's, so
// the global git config is the test's to write.
func whyRepo(t *testing.T, files map[string][]byte) (*workspace.Workspace, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("why blames with git")
	}
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@x"} {
		t.Setenv(k, v)
	}
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "files")
	w, err := workspace.Open(workspace.Env{Now: func() time.Time { return fixedNow }, Getenv: os.Getenv, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Session: "default", Trigger: "manual", Message: "one"}); err != nil {
		t.Fatal(err)
	}
	return w, home
}

// Issue 32: git blame prints some 60 bytes per line of the file it
// blames, and why held it whole: a clone's 4 MB file of empty lines cost
// ctxgit 500 MB. The output is read as it comes, keeping the hunks: here
// a file of 500,000 lines (29 MB of blame) costs a few MB.
func TestWhyReadsBlameAsItComes(t *testing.T) {
	const lines = 500_000
	w, _ := whyRepo(t, map[string][]byte{"big": bytes.Repeat([]byte("\n"), lines)})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := review.Why(context.Background(), w, review.WhyTarget{Path: "big"})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hunks) != 1 || res.Hunks[0].From != 1 || res.Hunks[0].To != lines {
		t.Fatalf("hunks %+v, want lines 1-%d of one commit", res.Hunks, lines)
	}
	t.Logf("allocated %d KB", (after.TotalAlloc-before.TotalAlloc)>>10)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("why allocated %d MB for a file of %d lines; want the blame read as it comes", got>>20, lines)
	}
}

// Issue 32: a clone's .gitattributes chooses the diff driver of each
// file, and git blame runs that driver's textconv program, a program of
// the user's config, on the file. why blames the file's own lines
// (--no-textconv): the program does not run.
func TestWhyRunsNoTextconv(t *testing.T) {
	w, home := whyRepo(t, map[string][]byte{".gitattributes": []byte("* diff=conv\n"), "f": []byte("a\nb\n")})
	ran := filepath.Join(home, "textconv-ran")
	cfg := "[diff \"conv\"]\n\ttextconv = \"sh -c 'touch " + ran + "; cat \\\"$0\\\"'\"\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", w.Root, "blame", "--", "f").CombinedOutput(); err != nil {
		t.Fatalf("git blame: %v\n%s", err, out)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("the test's textconv does not run under plain git blame: %v", err)
	}
	os.Remove(ran)
	if _, err := review.Why(context.Background(), w, review.WhyTarget{Path: "f"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("why ran the textconv program the clone's .gitattributes chose")
	}
}
