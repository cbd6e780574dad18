package vcs_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

// old is a time long before any snapshot's racy margin.
var old = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ageDirs sets every directory below repo (its .git aside) to an old
// mtime, so a later change of entries gives each a new one whatever the
// kernel clock's tick.
func ageDirs(t *testing.T, repo string) {
	t.Helper()
	filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
}

func treeFiles(t *testing.T, repo string, tree vcs.Hash) string {
	t.Helper()
	return gitCmd(t, repo, "ls-tree", "-r", "--name-only", tree.String())
}

// Issue 27 item 1: git's index is decoded only when it changed. What the
// walk asked of it (tracked paths under ignore rules) is kept in the stat
// cache against the index's stat data; a changed index is read again, so a
// newly tracked ignored file joins the snapshot and an untracked one
// leaves it.
func TestIndexDecodedOnlyWhenChanged(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{
		".gitignore": "*.log\nbuild/\n",
		"a.log":      "tracked\n",
		"b.log":      "not yet\n",
		"src/c.txt":  "plain\n",
		"build/x.o":  "tracked\n",
		"build/y.o":  "never\n",
	})
	gitCmd(t, repo, "add", "-f", "a.log", "build/x.o", "src/c.txt")
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	index := func(o *vcs.SnapshotOptions) { o.IndexFile = filepath.Join(repo, ".git/index") }
	step := func(name string, decodes int64, want string) {
		t.Helper()
		before := vcs.IndexDecodes()
		res := snapshotOf(t, s, repo, cache, index)
		if got := vcs.IndexDecodes() - before; got != decodes {
			t.Fatalf("%s: index decoded %d times, want %d", name, got, decodes)
		}
		if got := treeFiles(t, repo, res.Tree); got != want {
			t.Fatalf("%s: tree holds\n%s\nwant\n%s", name, got, want)
		}
		fresh := snapshotOf(t, s, repo, "", index)
		if fresh.Tree != res.Tree {
			t.Fatalf("%s: snapshot through the cache differs from one without", name)
		}
	}
	step("first", 1, ".gitignore\na.log\nbuild/x.o\nsrc/c.txt\n")
	step("unchanged index", 0, ".gitignore\na.log\nbuild/x.o\nsrc/c.txt\n")
	step("unchanged again", 0, ".gitignore\na.log\nbuild/x.o\nsrc/c.txt\n")

	gitCmd(t, repo, "add", "-f", "b.log")
	step("newly tracked", 1, ".gitignore\na.log\nb.log\nbuild/x.o\nsrc/c.txt\n")
	gitCmd(t, repo, "rm", "-q", "--cached", "a.log", "build/x.o")
	step("untracked", 1, ".gitignore\nb.log\nsrc/c.txt\n")
	step("unchanged after", 0, ".gitignore\nb.log\nsrc/c.txt\n")

	// A rule that now ignores a tracked file asks about a path the cache
	// kept nothing for: the index is read again, and the file stays.
	writeFiles(t, repo, map[string]string{".gitignore": "*.log\nbuild/\n*.txt\n"})
	step("new rule", 1, ".gitignore\nb.log\nsrc/c.txt\n")
	step("new rule, unchanged", 0, ".gitignore\nb.log\nsrc/c.txt\n")
}

// An index rewritten within the racy margin of a snapshot is not kept:
// another rewrite in the same timestamp tick could keep its stat data.
func TestRacyIndexNotKept(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{".gitignore": "*.log\n", "a.log": "tracked\n"})
	gitCmd(t, repo, "add", "-f", "a.log")
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	now := func(o *vcs.SnapshotOptions) {
		o.IndexFile = filepath.Join(repo, ".git/index")
		o.Start = time.Now()
	}
	for i := range 2 {
		before := vcs.IndexDecodes()
		res := snapshotOf(t, s, repo, cache, now)
		if got := vcs.IndexDecodes() - before; got != 1 {
			t.Fatalf("snapshot %d: a racy index decoded %d times, want 1", i, got)
		}
		if got := treeFiles(t, repo, res.Tree); got != ".gitignore\na.log\n" {
			t.Fatalf("tree holds %q", got)
		}
	}
}

// Issue 27 item 2: a directory whose stat data is unchanged is not listed
// again; every change of its entries is still seen, and the snapshot
// through the cache is always the one made without it. Issue 37: nor is
// a directory that holds nothing the snapshot keeps (at 184,880 files,
// 1,763 such directories were listed in every checkpoint).
func TestDirectoryListingCache(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("directory listings are cached on Linux and macOS only")
	}
	base := map[string]string{
		".gitignore":  "*.tmp\n",
		"top.txt":     "top\n",
		"a/one.txt":   "1\n",
		"a/two.txt":   "2\n",
		"a/b/c/deep":  "deep\n",
		"a/b/c/other": "other\n",
		"sub/file":    "f\n",
		"sub/x.tmp":   "ignored\n",
		"quiet/q.txt": "never touched\n",
		// A directory whose every entry is left out has no tree, but
		// its listing is kept like any other's.
		"only/ignored/z.tmp": "ignored\n",
	}
	p := func(repo, rel string) string { return filepath.Join(repo, filepath.FromSlash(rel)) }
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, repo string)
		listed int // directories read again
	}{
		{"nothing", func(t *testing.T, repo string) {}, 0},
		{"add", func(t *testing.T, repo string) { writeFiles(t, repo, map[string]string{"a/three.txt": "3\n"}) }, 1},
		{"remove", func(t *testing.T, repo string) { os.Remove(p(repo, "a/one.txt")) }, 1},
		{"rename", func(t *testing.T, repo string) { os.Rename(p(repo, "a/one.txt"), p(repo, "a/uno.txt")) }, 1},
		{"nested", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{"a/b/c/new": "n\n"})
		}, 1},
		{"new directory", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{"a/b/c/d/e/f": "n\n"})
		}, 3},
		{"directory replaced by a file", func(t *testing.T, repo string) {
			os.RemoveAll(p(repo, "a/b"))
			writeFiles(t, repo, map[string]string{"a/b": "now a file\n"})
		}, 1},
		{"file replaced by a directory", func(t *testing.T, repo string) {
			os.Remove(p(repo, "a/two.txt"))
			writeFiles(t, repo, map[string]string{"a/two.txt/inside": "i\n"})
		}, 2},
		{"symlink added", func(t *testing.T, repo string) { os.Symlink("one.txt", p(repo, "a/link")) }, 1},
		{"directory removed", func(t *testing.T, repo string) { os.RemoveAll(p(repo, "a/b/c")) }, 1},
		{"file added to a directory with no tree", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{"only/ignored/kept.txt": "k\n"})
		}, 1},
		{"ignored file added", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{"sub/y.tmp": "ignored\n"})
		}, 1},
		{"gitignore edited in place", func(t *testing.T, repo string) {
			// Rewriting a file leaves its directory's times alone: the
			// cached listing is used, with the new rules.
			writeFiles(t, repo, map[string]string{".gitignore": "*.txt\n"})
		}, 0},
		{"info/exclude edited", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{".git/info/exclude": "one.txt\nsub/\n"})
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newGitRepo(t)
			writeFiles(t, repo, base)
			os.Symlink("../top.txt", p(repo, "sub/link"))
			gitCmd(t, repo, "read-tree", "--empty") // an index for requireGitAddTree
			ageDirs(t, repo)
			s := openRepo(t, repo)
			cache := filepath.Join(t.TempDir(), "statcache")
			snapshotOf(t, s, repo, cache, nil)
			if res := snapshotOf(t, s, repo, cache, nil); vcs.ListedDirs(res) != 0 {
				t.Fatalf("unchanged tree: %d directories listed again, want 0", vcs.ListedDirs(res))
			}
			tc.change(t, repo)
			cached := snapshotOf(t, s, repo, cache, nil)
			fresh := snapshotOf(t, s, repo, "", nil)
			if cached.Tree != fresh.Tree {
				t.Fatalf("through the cache:\n%s\nwithout it:\n%s", treeFiles(t, repo, cached.Tree), treeFiles(t, repo, fresh.Tree))
			}
			requireGitAddTree(t, repo, cached.Tree)
			if got := vcs.ListedDirs(cached); got != tc.listed {
				t.Fatalf("%d directories listed again, want %d", got, tc.listed)
			}
			if again := snapshotOf(t, s, repo, cache, nil); again.Tree != fresh.Tree {
				t.Fatal("the next snapshot through the cache differs")
			}
		})
	}
}

// A symlink in a directory whose listing is cached is read again each
// time: retargeting it is seen.
func TestCachedDirectorySymlinkRetarget(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"d/a": "a\n", "d/b": "b\n"})
	os.Symlink("a", filepath.Join(repo, "d/link"))
	ageDirs(t, repo)
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	snapshotOf(t, s, repo, cache, nil)
	os.Remove(filepath.Join(repo, "d/link"))
	os.Symlink("b", filepath.Join(repo, "d/link"))
	res := snapshotOf(t, s, repo, cache, nil)
	if got := gitCmd(t, repo, "cat-file", "-p", res.Tree.String()+":d/link"); got != "b" {
		t.Fatalf("d/link = %q, want b", got)
	}
}

// git's racy rule for directories: one whose mtime is not older than the
// snapshot's start less the racy margin is listed again next time, even
// when its stat data did not change.
func TestRacyDirectoryListedAgain(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("directory listings are cached on Linux and macOS only")
	}
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"a/f": "f\n", "b/g": "g\n"})
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	now := func(o *vcs.SnapshotOptions) { o.Start = time.Now() }
	snapshotOf(t, s, repo, cache, now)
	// Fresh directories: all three (the root, a, b) are racy, so none
	// is trusted next time.
	if res := snapshotOf(t, s, repo, cache, now); vcs.ListedDirs(res) != 3 {
		t.Fatalf("racy directories: %d listed again, want 3", vcs.ListedDirs(res))
	}
	later := func(o *vcs.SnapshotOptions) { o.Start = time.Now().Add(time.Hour) }
	if res := snapshotOf(t, s, repo, cache, later); vcs.ListedDirs(res) != 3 {
		t.Fatalf("after racy directories: %d listed, want 3", vcs.ListedDirs(res))
	}
	if res := snapshotOf(t, s, repo, cache, later); vcs.ListedDirs(res) != 0 {
		t.Fatalf("once old enough: %d listed, want 0", vcs.ListedDirs(res))
	}
}

// An old-format cache reads as empty, silently: everything is listed and
// hashed again, the tree is the same, and the cache is written anew in
// the current format. Version 5 is the per-file varint format issue 37
// replaced; 4 came before directory listings.
func TestOldStatCacheFormatReadsEmpty(t *testing.T) {
	for _, version := range []byte{4, 5} {
		t.Run(fmt.Sprint("version ", version), func(t *testing.T) {
			repo := newGitRepo(t)
			writeFiles(t, repo, map[string]string{"d/a": "a\n", "d/b": "b\n"})
			s := openRepo(t, repo)
			cache := filepath.Join(t.TempDir(), "statcache")
			first := snapshotOf(t, s, repo, cache, nil)
			data, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			// What that version began with: the magic and its number;
			// what follows it is not read.
			old := append([]byte("CTXGITSC\x00\x00\x00"), version)
			os.WriteFile(cache, append(old, data[12:]...), 0o600)
			res := snapshotOf(t, s, repo, cache, nil)
			if res.Hashed != 2 || res.CacheNote != "" || res.Tree != first.Tree || vcs.ListedDirs(res) != 2 {
				t.Fatalf("old format: hashed %d, listed %d, note %q", res.Hashed, vcs.ListedDirs(res), res.CacheNote)
			}
			if again := snapshotOf(t, s, repo, cache, nil); again.Hashed != 0 || vcs.ListedDirs(again) != 0 {
				t.Fatalf("after the rewrite: hashed %d, listed %d, want none", again.Hashed, vcs.ListedDirs(again))
			}
		})
	}
}

// A damaged cache is reported and rebuilt: a flipped byte anywhere fails
// the checksum, and the tree is the same.
func TestDamagedStatCacheRebuilt(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"d/a": "a\n", "d/e/b": "b\n"})
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	first := snapshotOf(t, s, repo, cache, nil)
	good, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{12, len(good) / 2, len(good) - 5, len(good) - 1} {
		bad := bytes.Clone(good)
		bad[at] ^= 0x40
		os.WriteFile(cache, bad, 0o600)
		res := snapshotOf(t, s, repo, cache, nil)
		if res.Tree != first.Tree || res.Hashed != 2 || !strings.Contains(res.CacheNote, "corrupt stat cache; rebuilt") {
			t.Fatalf("byte %d flipped: hashed %d, note %q", at, res.Hashed, res.CacheNote)
		}
	}
	os.WriteFile(cache, good[:len(good)-1], 0o600)
	if res := snapshotOf(t, s, repo, cache, nil); res.Hashed != 2 || !strings.Contains(res.CacheNote, "corrupt") {
		t.Fatalf("truncated: hashed %d, note %q", res.Hashed, res.CacheNote)
	}
}

// A checkpoint that changed nothing leaves the cache file as it was: not
// written again, not even renamed over.
func TestUnchangedSnapshotLeavesTheCache(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"d/a": "a\n", "d/e/b": "b\n", "top": "t\n"})
	ageDirs(t, repo)
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	snapshotOf(t, s, repo, cache, nil)
	before, err := os.Stat(cache)
	if err != nil {
		t.Fatal(err)
	}
	res := snapshotOf(t, s, repo, cache, nil)
	after, err := os.Stat(cache)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) || res.Hashed != 0 || vcs.ListedDirs(res) != 0 {
		t.Fatalf("unchanged: cache rewritten %v, hashed %d, listed %d", !os.SameFile(before, after), res.Hashed, vcs.ListedDirs(res))
	}
}

// An index that does not decode is reported once, keeps no ignored file,
// and leaves nothing in the cache that outlives it.
func TestUnreadableIndexReportedOnce(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{".gitignore": "*.log\n", "a.log": "a\n", "b.log": "b\n", "c.txt": "c\n"})
	gitCmd(t, repo, "add", "-f", "a.log", "b.log")
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	index := func(o *vcs.SnapshotOptions) { o.IndexFile = filepath.Join(repo, ".git/index") }
	good, err := os.ReadFile(filepath.Join(repo, ".git/index"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, ".git/index"), []byte("DIRC garbage"), 0o644)
	res := snapshotOf(t, s, repo, cache, index)
	n := 0
	for _, sk := range res.Skipped {
		if strings.HasPrefix(sk, "index: unreadable") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("unreadable index reported %d times: %q", n, res.Skipped)
	}
	if got := treeFiles(t, repo, res.Tree); got != ".gitignore\nc.txt\n" {
		t.Fatalf("tree holds %q", got)
	}
	os.WriteFile(filepath.Join(repo, ".git/index"), good, 0o644)
	os.Chtimes(filepath.Join(repo, ".git/index"), old, old)
	if res := snapshotOf(t, s, repo, cache, index); treeFiles(t, repo, res.Tree) != ".gitignore\na.log\nb.log\nc.txt\n" {
		t.Fatalf("after the index is mended, tree holds %q", treeFiles(t, repo, res.Tree))
	}
}

// Issue 37: a directory whose listing and rules are unchanged takes each
// entry's fate from the stat cache and matches no rule again, unless
// deciding it asked git's index (an ignored or secret entry: the index
// may have changed since). Every change of a rule is still seen: a
// .gitignore in the tree (by content, whatever its stat data), one
// above the workspace, info/exclude, snapshot.excludes, the secrets.
func TestUnchangedDirectoriesAreNotDecidedAgain(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("directory listings are cached on Linux and macOS only")
	}
	base := map[string]string{
		".gitignore":     "*.log\n",
		"a/one.txt":      "1\n",
		"a/b/.gitignore": "*.tmp\n",
		"a/b/two.txt":    "2\n",
		"a/b/x.tmp":      "ignored\n",
		"c/keep.txt":     "k\n",
		"c/out.log":      "ignored\n",
		"d/server.pem":   "secret\n",
		"e/f.txt":        "f\n",
		"e/skip1":        "excluded\n",
		"g/.gitignore":   "*.bak\n",
		"g/h.txt":        "h\n",
		"g/i/j.txt":      "j\n",
	}
	// Matched again when nothing changed: the entries of c, a/b and d,
	// whose ignored or secret entries asked the index.
	const asked = 2 + 3 + 1
	opts := func(excludes ...string) func(*vcs.SnapshotOptions) {
		return func(o *vcs.SnapshotOptions) {
			o.IndexFile = filepath.Join(o.RepoTop, ".git/index")
			o.Secrets = []string{"*.pem"}
			o.Excludes = append([]string{"e/skip*"}, excludes...)
		}
	}
	p := func(repo, rel string) string { return filepath.Join(repo, filepath.FromSlash(rel)) }
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, repo string)
		mutate  func(*vcs.SnapshotOptions)
		matched int // entries matched against the rules after the change; -1: every one
		next    int // and in the next snapshot: those of the directories that ask the index now
	}{
		{"nothing", func(*testing.T, string) {}, opts(), asked, asked},
		{"gitignore in the tree, same size", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{"a/b/.gitignore": "*.txt\n"})
			os.Chtimes(p(repo, "a/b/.gitignore"), old, old)
		}, opts(), asked, asked},
		// g and g/i decided again; their .txt files are ignored now, so
		// they ask the index from then on.
		{"gitignore in the tree of a directory that asked nothing, same size", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{"g/.gitignore": "*.txt\n"})
			os.Chtimes(p(repo, "g/.gitignore"), old, old)
		}, opts(), asked + 4, asked + 4},
		// a/one.txt is ignored now: a asks the index too.
		{"gitignore at the root", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{".gitignore": "*.log\none.txt\n"})
		}, opts(), -1, asked + 2},
		{"info/exclude", func(t *testing.T, repo string) {
			writeFiles(t, repo, map[string]string{".git/info/exclude": "keep.txt\n"})
		}, opts(), -1, asked},
		// a is left out, so a/b is not walked.
		{"snapshot.excludes", func(*testing.T, string) {}, opts("a/"), -1, asked - 3},
		{"secrets", func(*testing.T, string) {}, func(o *vcs.SnapshotOptions) { opts()(o); o.Secrets = []string{"*.pem", "f.txt"} }, -1, asked + 2},
		{"newly tracked ignored file", func(t *testing.T, repo string) { gitCmd(t, repo, "add", "-f", "c/out.log") }, opts(), asked, asked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newGitRepo(t)
			writeFiles(t, repo, base)
			gitCmd(t, repo, "read-tree", "--empty")
			ageDirs(t, repo)
			s := openRepo(t, repo)
			cache := filepath.Join(t.TempDir(), "statcache")
			first := snapshotOf(t, s, repo, cache, opts())
			entries := vcs.MatchedEntries(first)
			if again := snapshotOf(t, s, repo, cache, opts()); vcs.MatchedEntries(again) != asked || again.Tree != first.Tree {
				t.Fatalf("unchanged: %d entries matched, want %d of %d", vcs.MatchedEntries(again), asked, entries)
			}
			tc.change(t, repo)
			cached := snapshotOf(t, s, repo, cache, tc.mutate)
			fresh := snapshotOf(t, s, repo, "", tc.mutate)
			if cached.Tree != fresh.Tree || !maps.Equal(cached.Excluded, fresh.Excluded) || !maps.Equal(cached.ExcludedTracked, fresh.ExcludedTracked) {
				t.Fatalf("through the cache:\n%s%v %v\nwithout it:\n%s%v %v", treeFiles(t, repo, cached.Tree), cached.Excluded, cached.ExcludedTracked,
					treeFiles(t, repo, fresh.Tree), fresh.Excluded, fresh.ExcludedTracked)
			}
			want := tc.matched
			if want < 0 {
				want = vcs.MatchedEntries(fresh)
			}
			if got := vcs.MatchedEntries(cached); got != want {
				t.Fatalf("%d entries matched, want %d", got, want)
			}
			again := snapshotOf(t, s, repo, cache, tc.mutate)
			if again.Tree != fresh.Tree || vcs.MatchedEntries(again) != tc.next || !maps.Equal(again.Excluded, fresh.Excluded) {
				t.Fatalf("the next snapshot: %d entries matched (want %d), tree %s, want %s", vcs.MatchedEntries(again), tc.next, again.Tree, fresh.Tree)
			}
		})
	}
}
