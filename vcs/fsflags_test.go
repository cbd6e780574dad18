package vcs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/vcs"
)

// SPEC §9.7: on a workspace whose git config says the file system has no
// executable bit, no symlinks and folds case (Windows, macOS), the
// snapshot is still the tree `git add -A` records there: modes come from
// the index, a symlink checked out as a plain file stays a symlink, and
// ignore rules match whatever the case. Tested on Linux through the same
// config switches git reads.
func TestSnapshotOnAWindowsLikeWorkspace(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{
		"README.md":   "hi\n",
		"run.sh":      "#!/bin/sh\n",
		".gitignore":  "*.LOG\nBuild/\n",
		"debug.log":   "ignored whatever the case\n",
		"build/x.o":   "ignored directory\n",
		"Notes/a.txt": "kept\n",
	})
	os.Chmod(filepath.Join(repo, "run.sh"), 0o755)
	os.Symlink("README.md", filepath.Join(repo, "link"))
	gitCmd(t, repo, "add", "run.sh", "link", "README.md")
	// Now as Windows checks them out: no executable bit, the link a plain
	// file holding its target; and a new file whose bit means nothing.
	os.Chmod(filepath.Join(repo, "run.sh"), 0o644)
	os.Remove(filepath.Join(repo, "link"))
	os.WriteFile(filepath.Join(repo, "link"), []byte("README.md"), 0o644)
	writeFiles(t, repo, map[string]string{"new.sh": "#!/bin/sh\n"})
	os.Chmod(filepath.Join(repo, "new.sh"), 0o755)
	for _, kv := range [][2]string{{"core.filemode", "false"}, {"core.symlinks", "false"}, {"core.ignorecase", "true"}} {
		gitCmd(t, repo, "config", kv[0], kv[1])
	}
	flags, err := vcs.ReadFSFlags(filepath.Join(repo, ".git"))
	if err != nil || flags != (vcs.FSFlags{IgnoreCase: true, NoFileMode: true, NoSymlinks: true}) {
		t.Fatalf("flags read from the config: %+v, %v", flags, err)
	}

	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) {
		o.IndexFile = filepath.Join(repo, ".git/index")
		o.FS = flags
	})
	requireGitAddTree(t, repo, res.Tree)
	tree := gitCmd(t, repo, "ls-tree", "-r", res.Tree.String())
	for _, line := range []string{"100755 blob", "120000 blob"} {
		if !strings.Contains(tree, line) {
			t.Fatalf("no %q entry kept:\n%s", line, tree)
		}
	}

	// The previous checkpoint's modes decide over the index's: there
	// run.sh was plain (the index says executable) and new.sh executable
	// (which its disk bit alone could not make it).
	plain := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) { o.IndexFile = filepath.Join(repo, ".git/index") })
	res2 := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) {
		o.IndexFile = filepath.Join(repo, ".git/index")
		o.FS = flags
		o.Previous = plain.Tree
	})
	// link too was a plain file there, so it stays one.
	modes := gitCmd(t, repo, "ls-tree", "--format=%(objectmode) %(path)", res2.Tree.String(), "run.sh", "new.sh", "link")
	if modes != "100644 link\n100755 new.sh\n100644 run.sh\n" {
		t.Fatalf("modes with the previous checkpoint:\n%s", modes)
	}
}

// Secret patterns match whatever the case, on every file system.
func TestSecretsMatchAnyCase(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"SERVER.PEM": "key\n", "Config/.ENV": "x\n", "ok.txt": "ok\n"})
	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) { o.Secrets = []string{"*.pem", ".env*"} })
	tree := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String())
	if tree != "ok.txt\n" {
		t.Fatalf("tree holds %q", tree)
	}
	if res.Excluded["*.pem"] != 1 || res.Excluded[".env*"] != 1 {
		t.Fatalf("excluded counts %v", res.Excluded)
	}
}

// The probe finds this file system's abilities as git init does: on
// Linux, case-sensitive with an executable bit and symlinks.
func TestProbeFSFlags(t *testing.T) {
	dir := t.TempDir()
	flags, err := vcs.ProbeFSFlags(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && flags != (vcs.FSFlags{}) {
		t.Fatalf("probe on a Linux temp dir: %+v", flags)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the probe left %v behind", left)
	}
	if _, err := vcs.ProbeFSFlags(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("probe of a missing directory succeeded")
	}
}

// SPEC §9.7: a snapshot stores a file's bytes as they are on disk; it
// applies neither core.autocrlf nor .gitattributes, so a CRLF working tree
// (Git for Windows' default) comes back byte for byte.
func TestSnapshotKeepsCRLF(t *testing.T) {
	repo := newGitRepo(t)
	gitCmd(t, repo, "config", "core.autocrlf", "true")
	writeFiles(t, repo, map[string]string{
		"crlf.txt":       "one\r\ntwo\r\n",
		"mixed.txt":      "lf\ncrlf\r\n",
		".gitattributes": "*.txt text eol=lf\n",
	})
	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", nil)
	for name, want := range map[string]string{"crlf.txt": "one\r\ntwo\r\n", "mixed.txt": "lf\ncrlf\r\n"} {
		e, err := vcs.Lookup(s, res.Tree, name)
		if err != nil {
			t.Fatal(err)
		}
		data, err := vcs.ReadBlob(s, e.ID)
		if err != nil || string(data) != want {
			t.Fatalf("%s stored as %q (%v), want %q", name, data, err, want)
		}
	}
}

// Paths far longer than Windows' old 260-character limit, and deep, are
// stored with `/` between their names.
func TestSnapshotLongPaths(t *testing.T) {
	repo := newGitRepo(t)
	var parts []string
	for i := 0; i < 12; i++ {
		parts = append(parts, strings.Repeat(string(rune('a'+i)), 40))
	}
	long := strings.Join(parts, "/") + "/file.txt"
	writeFiles(t, repo, map[string]string{long: "deep\n"})
	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", nil)
	if len(long) < 400 {
		t.Fatalf("path of %d characters is not long", len(long))
	}
	if names := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String()); names != long+"\n" {
		t.Fatalf("tree holds %q", names)
	}
}
