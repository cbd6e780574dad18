package vcs_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// gitPack returns the pack git builds for every object of repo.
func gitPack(t *testing.T, repo string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", append([]string{"pack-objects", "--revs", "--all", "--stdout", "-q"}, args...)...)
	cmd.Dir = repo
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git pack-objects: %v", err)
	}
	return out
}

// deltaRepo makes a repository whose history git packs with deltas.
func deltaRepo(t *testing.T) string {
	repo := newGitRepo(t)
	big := strings.Repeat("line of a large file that git will deltify\n", 2000)
	for i := range 4 {
		os.WriteFile(filepath.Join(repo, "big.txt"), []byte(big+fmt.Sprintf("version %d\n", i)), 0o644)
		os.WriteFile(filepath.Join(repo, fmt.Sprintf("small%d.txt", i)), []byte(fmt.Sprint(i)), 0o644)
		gitCmd(t, repo, "add", ".")
		gitCmd(t, repo, "commit", "-qm", fmt.Sprint("v", i))
	}
	return repo
}

// A pack as a remote sends it — offset deltas or reference deltas — is
// stored so that every object reads back as git has it, and git accepts
// the result.
func TestStorePackFromGit(t *testing.T) {
	repo := deltaRepo(t)
	head := strings.TrimSpace(gitCmd(t, repo, "rev-parse", "HEAD"))
	objects := strings.Fields(gitCmd(t, repo, "rev-list", "--objects", "--all", "--no-object-names"))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ofs-delta", []string{"--delta-base-offset"}},
		{"ref-delta", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pack := gitPack(t, repo, tc.args...)
			dir := filepath.Join(t.TempDir(), "store.git")
			s, err := vcs.InitPrivate(dir)
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.StorePack(bytes.NewReader(pack))
			if err != nil {
				t.Fatal(err)
			}
			if n != len(objects) {
				t.Fatalf("stored %d objects, git packed %d", n, len(objects))
			}
			idx := mustGlob(t, filepath.Join(dir, "objects/pack/*.idx"))
			if out := gitCmd(t, dir, "verify-pack", "-v", idx); !strings.Contains(out, "chain length") {
				t.Fatalf("the pack holds no deltas; the test proves nothing:\n%s", out)
			}
			for _, o := range objects {
				id, _ := vcs.ParseHash(o)
				typ, data, err := s.ReadObject(id)
				if err != nil {
					t.Fatal(err)
				}
				want := gitCmd(t, repo, "cat-file", typ.String(), o)
				if string(data) != want {
					t.Fatalf("%s: content differs from git's", o)
				}
			}
			h, _ := vcs.ParseHash(head)
			if err := s.UpdateRef("refs/ctxgit/sessions/default", h, vcs.ZeroHash); err != nil {
				t.Fatal(err)
			}
			gitCmd(t, dir, "--git-dir="+dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

// A damaged or incomplete pack is refused and leaves nothing behind.
func TestStorePackRefusesBadPacks(t *testing.T) {
	repo := deltaRepo(t)
	good := gitPack(t, repo, "--delta-base-offset")
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0xff
	// A thin pack: the newest commit against its parent, bases left out.
	thinCmd := exec.Command("git", "pack-objects", "--revs", "--thin", "--stdout", "-q")
	thinCmd.Dir = repo
	thinCmd.Stdin = strings.NewReader("HEAD\n^HEAD~1\n")
	thin, err := thinCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pack []byte
		want string
	}{
		{"not a pack", []byte(strings.Repeat("x", 64)), "not a packfile"},
		{"truncated", good[:len(good)-40], "checksum mismatch"},
		{"flipped byte", flipped, "checksum mismatch"},
		{"short", good[:20], "truncated"},
		{"thin", thin, "thin pack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store.git")
			s, err := vcs.InitPrivate(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.StorePack(bytes.NewReader(tc.pack))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "objects/pack/*")); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// An empty answer stores nothing.
func TestStorePackEmpty(t *testing.T) {
	s, err := vcs.InitPrivate(filepath.Join(t.TempDir(), "store.git"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.StorePack(bytes.NewReader(nil)); n != 0 || err != nil {
		t.Fatalf("StorePack(empty) = %d, %v", n, err)
	}
}

// The pack ctxgit sends is one git indexes and verifies.
func TestWritePackReadByGit(t *testing.T) {
	src := vcs.NewMemStore()
	c1 := commitFiles(t, src, vcs.ZeroHash, map[string]string{"a.txt": "alpha", "dir/b.txt": "beta"})
	c2 := commitFiles(t, src, c1, map[string]string{"a.txt": "alpha", "dir/b.txt": "beta 2", "c.txt": "gamma"})
	ids, err := vcs.ReachableObjects(src, []vcs.Hash{c2}, func(vcs.Hash) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	// 2 commits, 4 trees, 4 blobs.
	if len(ids) != 10 {
		t.Fatalf("%d objects reachable, want 10", len(ids))
	}
	var buf bytes.Buffer
	if err := vcs.WritePack(&buf, src, ids); err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir()
	gitCmd(t, bare, "init", "-q", "--bare")
	cmd := exec.Command("git", "index-pack", "--stdin", "--strict")
	cmd.Dir = bare
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git index-pack: %v\n%s", err, out)
	}
	gitCmd(t, bare, "update-ref", "refs/ctxgit/sessions/x", c2.String())
	gitCmd(t, bare, "fsck", "--strict", "--no-dangling")

	// Only what is new since c1 is sent when the other side has c1.
	known, err := vcs.KnownFrom(src, []vcs.Hash{c1})
	if err != nil {
		t.Fatal(err)
	}
	ids, err = vcs.ReachableObjects(src, []vcs.Hash{c2}, known)
	if err != nil {
		t.Fatal(err)
	}
	// c2, its root tree, dir/, dir/b.txt and c.txt.
	if len(ids) != 5 {
		t.Fatalf("%d objects new since c1, want 5", len(ids))
	}
}

// commitFiles commits a tree of files on parent.
func commitFiles(t *testing.T, s vcs.Store, parent vcs.Hash, files map[string]string) vcs.Hash {
	t.Helper()
	var entries []vcs.PathEntry
	for p, content := range files {
		id, err := s.WriteObject(vcs.BlobObject, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, vcs.PathEntry{Path: p, Mode: vcs.ModeFile, ID: id})
	}
	root, err := vcs.Overlay(s, vcs.ZeroHash, entries)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := &vcs.Commit{Tree: root, Message: "checkpoint\n",
		Author: vcs.Signature{Name: "t", Email: "t@t", When: when}, Committer: vcs.Signature{Name: "t", Email: "t@t", When: when}}
	if !parent.IsZero() {
		c.Parents = []vcs.Hash{parent}
		pc, err := vcs.ReadCommit(s, parent)
		if err != nil {
			t.Fatal(err)
		}
		c.Committer.When = pc.Committer.When.Add(time.Second)
		c.Author.When = c.Committer.When
	}
	id, err := vcs.WriteCommit(s, c)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
