package vcs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// Short ids expand over packed and loose objects alike: every object
// that starts with the prefix, each once, and at most limit.
func TestObjectsWithPrefix(t *testing.T) {
	repo := newGitRepo(t)
	s, err := vcs.OpenGit(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	var all []vcs.Hash
	b, _ := s.NewBatch()
	for i := range 500 {
		id, err := b.Add(vcs.BlobObject, []byte(strings.Repeat("p", i)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		id, err := s.WriteObject(vcs.BlobObject, []byte(strings.Repeat("l", i)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
	}
	// The same object loose and packed is listed once.
	if _, err := s.WriteObject(vcs.BlobObject, []byte(strings.Repeat("p", 7))); err != nil {
		t.Fatal(err)
	}
	for _, id := range all[495:505] {
		for n := 2; n <= 40; n += 3 {
			prefix := id.String()[:n]
			var want []string
			for _, o := range all {
				if strings.HasPrefix(o.String(), prefix) {
					want = append(want, o.String())
				}
			}
			got, err := s.ObjectsWithPrefix(strings.ToUpper(prefix), 1000)
			if err != nil {
				t.Fatal(err)
			}
			var gotS []string
			for _, h := range got {
				gotS = append(gotS, h.String())
			}
			slices.Sort(want)
			want = slices.Compact(want) // the empty blob is both packed and loose
			slices.Sort(gotS)
			if !slices.Equal(gotS, want) {
				t.Fatalf("ObjectsWithPrefix(%s) = %v, want %v", prefix, gotS, want)
			}
		}
	}
	if got, _ := s.ObjectsWithPrefix(all[0].String()[:2], 1); len(got) != 1 {
		t.Fatalf("limit 1 gave %d ids", len(got))
	}
	for _, bad := range []string{"", "a", "zz12", strings.Repeat("a", 41)} {
		if got, err := s.ObjectsWithPrefix(bad, 10); err != nil || len(got) != 0 {
			t.Fatalf("ObjectsWithPrefix(%q) = %v, %v", bad, got, err)
		}
	}
}

// git rev-parse answers for a revision expression; one it cannot resolve,
// or one that looks like an option, is ErrRevisionUnknown.
func TestRevParseCommit(t *testing.T) {
	repo := newGitRepo(t)
	gitCmd(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
	gitCmd(t, repo, "commit", "-q", "--allow-empty", "-m", "two")
	want := strings.TrimSpace(gitCmd(t, repo, "rev-parse", "HEAD~1"))
	got, err := vcs.RevParseCommit(context.Background(), repo, "HEAD~1")
	if err != nil || got.String() != want {
		t.Fatalf("RevParseCommit(HEAD~1) = %v, %v; want %s", got, err, want)
	}
	for _, bad := range []string{"HEAD~5", "nosuch", "--help", "HEAD^{tree}"} {
		if _, err := vcs.RevParseCommit(context.Background(), repo, bad); !errors.Is(err, vcs.ErrRevisionUnknown) {
			t.Errorf("RevParseCommit(%q) = %v, want ErrRevisionUnknown", bad, err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := vcs.RevParseCommit(context.Background(), repo, "HEAD"); !errors.Is(err, vcs.ErrNoGitBinary) {
		t.Fatalf("without git: %v, want ErrNoGitBinary", err)
	}
}

// IndexPaths are the paths git ls-files lists; a missing index none.
func TestIndexPaths(t *testing.T) {
	repo := newGitRepo(t)
	if got, err := vcs.IndexPaths(filepath.Join(repo, ".git", "index")); err != nil || len(got) != 0 {
		t.Fatalf("no index: %v, %v", got, err)
	}
	for _, p := range []string{"b.txt", "a/z.txt", "a/b/c.txt", "untracked.txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755)
		os.WriteFile(filepath.Join(repo, p), []byte(p), 0o644)
	}
	gitCmd(t, repo, "add", "b.txt", "a")
	got, err := vcs.IndexPaths(filepath.Join(repo, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(gitCmd(t, repo, "ls-files"))
	if !slices.Equal(got, want) {
		t.Fatalf("IndexPaths = %v, want %v", got, want)
	}
}
