package vcs_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openRepo(t *testing.T, repo string) *vcs.GitStore {
	t.Helper()
	s, err := vcs.OpenGit(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshotOf runs a snapshot with the stat cache in a temp dir and flushes
// the result so git can see it.
func snapshotOf(t *testing.T, s *vcs.GitStore, repo string, cache string, mutate func(*vcs.SnapshotOptions)) *vcs.SnapshotResult {
	t.Helper()
	p, err := vcs.NewPending(s)
	if err != nil {
		t.Fatal(err)
	}
	opts := vcs.SnapshotOptions{
		Root: repo, RepoTop: repo, InfoExclude: filepath.Join(repo, ".git/info/exclude"),
		StatCache: cache, StoreKey: s.CommonDir(), MaxFileSize: 1 << 20,
		Start: time.Now().Add(time.Hour), // trust every entry: nothing here is racy
	}
	if mutate != nil {
		mutate(&opts)
	}
	res, err := vcs.Snapshot(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	sig := vcs.Signature{Name: "t", Email: "t@t", When: time.Unix(0, 0).UTC()}
	c, err := vcs.WriteCommit(p, &vcs.Commit{Tree: res.Tree, Author: sig, Committer: sig, Message: "s\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(c); err != nil {
		t.Fatal(err)
	}
	if err := res.SaveCache(s, c); err != nil {
		t.Fatal(err)
	}
	return res
}

// SPEC §9.1: the snapshot is the tree git itself would record for the
// worktree with `git add -A` (ignore rules included), made without touching
// the index.
func TestSnapshotMatchesGitAddAll(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{
		"README.md":            "hi\n",
		"src/main.go":          "package main\n",
		"src/gen/out.txt":      "generated\n",
		"src/.gitignore":       "gen/\n!keep.log\n*.log\n",
		"src/a.log":            "log\n",
		"src/keep.log":         "kept\n",
		".gitignore":           "build/\n/top-only.txt\n",
		"build/x.o":            "obj\n",
		"top-only.txt":         "ignored at top\n",
		"docs/top-only.txt":    "not ignored here\n",
		"a-b/file":             "sorting\n",
		"a.b":                  "sorting\n",
		"a/file":               "sorting\n",
		"empty-dir/.gitignore": "*\n",
		"info-excluded.tmp":    "x\n",
		"build/tracked.o":      "tracked although ignored\n",
		"build/untracked.o":    "ignored\n",
		"src/tracked.log":      "tracked although ignored\n",
	})
	// Tracked before the ignore rules came: git keeps them, and so must we.
	gitCmd(t, repo, "add", "-f", "build/tracked.o", "src/tracked.log")
	os.WriteFile(filepath.Join(repo, ".git/info/exclude"), []byte("*.tmp\n"), 0o644)
	os.Chmod(filepath.Join(repo, "src/main.go"), 0o755)
	os.Symlink("../README.md", filepath.Join(repo, "src/link"))
	os.Symlink("/etc/passwd", filepath.Join(repo, "passwd-link"))

	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) { o.IndexFile = filepath.Join(repo, ".git/index") })

	requireGitAddTree(t, repo, res.Tree)
	// The symlink to /etc/passwd is stored as a link, never read.
	if out := gitCmd(t, repo, "cat-file", "-p", res.Tree.String()+":passwd-link"); out != "/etc/passwd" {
		t.Fatalf("passwd-link blob = %q", out)
	}
	gitCmd(t, repo, "fsck", "--strict", "--no-dangling")
	tree := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String())
	if !strings.Contains(tree, "build/tracked.o\n") || strings.Contains(tree, "build/untracked.o") || !strings.Contains(tree, "src/tracked.log\n") {
		t.Fatalf("tracked-but-ignored handling:\n%s", tree)
	}
	if st := gitCmd(t, repo, "status", "--porcelain"); !strings.Contains(st, "?? README.md") {
		t.Fatalf("index was touched:\n%s", st)
	}
}

func gitEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	return gitRun(t, dir, env, args...)
}

// SPEC §9.3: secrets, ctxgit's fixed excludes and oversized files are left
// out and reported; nested repositories become gitlinks.
func TestSnapshotExclusions(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{
		"app.go":                   "package app\n",
		".env":                     "TOKEN=secret\n",
		".env.local":               "TOKEN=secret\n",
		"certs/server.pem":         "-----BEGIN-----\n",
		"keys/id_ed25519":          "private\n",
		"big.bin":                  strings.Repeat("x", 2048),
		".ctxgit/local/lock":       "pid\n",
		".ctxgit/decisions.md":     "- d\n",
		".ctxgit/checkpoint.yaml":  "old\n",
		"nested/README":            "inner\n",
		"nested-empty/placeholder": "x\n",
		"scratch/tmp.txt":          "excluded by snapshot.excludes\n",
	})
	gitCmd(t, filepath.Join(repo, "nested"), "init", "-q")
	gitCmd(t, filepath.Join(repo, "nested"), "add", "README")
	gitCmd(t, filepath.Join(repo, "nested"), "commit", "-qm", "inner")
	innerHead := strings.TrimSpace(gitCmd(t, filepath.Join(repo, "nested"), "rev-parse", "HEAD"))
	gitCmd(t, filepath.Join(repo, "nested-empty"), "init", "-q")

	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) {
		o.Secrets = []string{".env*", "*.pem", "*.key", "id_*"}
		o.Fixed = []string{"/.ctxgit/local/", "/.ctxgit/checkpoint.yaml"}
		// The user's excludes cannot re-include ctxgit's fixed paths.
		o.Excludes = []string{"!/.ctxgit/local/", "!/.ctxgit/checkpoint.yaml", "/scratch/"}
		o.MaxFileSize = 1024
	})
	got := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String())
	if got != ".ctxgit/decisions.md\napp.go\nnested\n" {
		t.Fatalf("tree holds:\n%s", got)
	}
	if line := gitCmd(t, repo, "ls-tree", res.Tree.String(), "nested"); !strings.HasPrefix(line, "160000 commit "+innerHead) {
		t.Fatalf("nested repo entry = %q", line)
	}
	if res.Excluded[".env*"] != 2 || res.Excluded["*.pem"] != 1 || res.Excluded["id_*"] != 1 {
		t.Fatalf("excluded by rule = %v", res.Excluded)
	}
	if len(res.TooLarge) != 1 || !strings.HasPrefix(res.TooLarge[0], "big.bin") {
		t.Fatalf("too large = %v", res.TooLarge)
	}
	if len(res.Nested) != 2 || !strings.Contains(res.Nested[1], "no commit yet") {
		t.Fatalf("nested = %v", res.Nested)
	}
}

// SPEC §9.4: unchanged files are not read again; a changed one is; a
// corrupted cache is reported and never trusted.
func TestStatCache(t *testing.T) {
	repo := newGitRepo(t)
	files := map[string]string{}
	for i := range 50 {
		files[filepath.Join("d", string(rune('a'+i%26)), "f"+string(rune('a'+i/26)))] = strings.Repeat("x", i)
	}
	writeFiles(t, repo, files)
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")

	first := snapshotOf(t, s, repo, cache, nil)
	if first.Hashed != 50 {
		t.Fatalf("first snapshot hashed %d files, want 50", first.Hashed)
	}
	second := snapshotOf(t, s, repo, cache, nil)
	if second.Hashed != 0 || second.Tree != first.Tree {
		t.Fatalf("no-op snapshot hashed %d, tree %s vs %s", second.Hashed, second.Tree, first.Tree)
	}
	writeFiles(t, repo, map[string]string{"d/a/fa": "changed"})
	third := snapshotOf(t, s, repo, cache, nil)
	if third.Hashed != 1 || third.Tree == first.Tree {
		t.Fatalf("one change: hashed %d", third.Hashed)
	}

	// Flip a byte in the middle: the checksum catches it.
	data, _ := os.ReadFile(cache)
	data[len(data)/2] ^= 0xff
	os.WriteFile(cache, data, 0o644)
	fourth := snapshotOf(t, s, repo, cache, nil)
	if fourth.Hashed != 50 || !strings.Contains(fourth.CacheNote, "corrupt stat cache; rebuilt") || fourth.Tree != third.Tree {
		t.Fatalf("corrupt cache: hashed %d, note %q", fourth.Hashed, fourth.CacheNote)
	}
	// Truncated: same.
	os.WriteFile(cache, data[:len(data)/3], 0o644)
	if fifth := snapshotOf(t, s, repo, cache, nil); fifth.Hashed != 50 || fifth.CacheNote == "" {
		t.Fatalf("truncated cache: hashed %d, note %q", fifth.Hashed, fifth.CacheNote)
	}
}

// SPEC §9.4: an entry modified within the racy margin of the snapshot is not
// trusted next time, so a same-size change in the same timestamp tick is
// still seen.
func TestStatCacheRacyEntries(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{"f": "aaaa"})
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	now := func(o *vcs.SnapshotOptions) { o.Start = time.Now() }
	snapshotOf(t, s, repo, cache, now)
	fi, _ := os.Stat(filepath.Join(repo, "f"))
	writeFiles(t, repo, map[string]string{"f": "bbbb"})
	os.Chtimes(filepath.Join(repo, "f"), fi.ModTime(), fi.ModTime())
	res := snapshotOf(t, s, repo, cache, now)
	if res.Hashed != 1 {
		t.Fatalf("racy entry trusted: hashed %d", res.Hashed)
	}
	if out := gitCmd(t, repo, "cat-file", "-p", res.Tree.String()+":f"); out != "bbbb" {
		t.Fatalf("f = %q", out)
	}
}

// SPEC §9.1: a workspace in a subdirectory honours the .gitignore files
// above it.
func TestSnapshotSubdirectoryWorkspace(t *testing.T) {
	repo := newGitRepo(t)
	writeFiles(t, repo, map[string]string{
		".gitignore":          "*.log\n/ws/top-anchored\n",
		"ws/.gitignore":       "local-only\n",
		"ws/keep.txt":         "k\n",
		"ws/x.log":            "l\n",
		"ws/top-anchored":     "t\n",
		"ws/local-only":       "l\n",
		"ws/sub/top-anchored": "kept: anchored pattern names ws/top-anchored only\n",
	})
	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) { o.Root = filepath.Join(repo, "ws") })
	got := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String())
	if got != ".gitignore\nkeep.txt\nsub/top-anchored\n" {
		t.Fatalf("tree holds:\n%s", got)
	}
}

// A first snapshot of many files lands as one pack, not loose objects.
func TestFirstSnapshotIsPacked(t *testing.T) {
	repo := newGitRepo(t)
	files := map[string]string{}
	for i := range 400 {
		files[filepath.Join("dir"+string(rune('a'+i%20)), "file"+strings.Repeat("x", i/20))] = strings.Repeat("content ", i)
	}
	writeFiles(t, repo, files)
	s := openRepo(t, repo)
	snapshotOf(t, s, repo, "", nil)
	out := gitCmd(t, repo, "count-objects", "-v")
	if !strings.Contains(out, "\ncount: 0\n") && !strings.HasPrefix(out, "count: 0\n") {
		t.Fatalf("loose objects after a 400-file snapshot:\n%s", out)
	}
	gitCmd(t, repo, "fsck", "--strict", "--no-dangling")
}

// SPEC §9.4: the stat cache and the unchanged-directory shortcut are only
// ever a speed-up: after any sequence of edits, a snapshot through the cache
// is the tree a snapshot without one makes.
func TestStatCacheNeverChangesTheTree(t *testing.T) {
	repo := newGitRepo(t)
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	rng := rand.New(rand.NewPCG(3, 9))
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var files []string
	ignoring := false
	// Distinct mtimes: this test is about the cache, not about coarse
	// kernel timestamps (the racy rule covers those). A change of
	// entries gives the directories whose entries changed a new mtime,
	// as a kernel clock finer than the test's steps would; a file
	// written in place changes no directory's.
	bumpDirs := func(from, top string) {
		for d := from; len(d) >= len(top); d = filepath.Dir(d) {
			os.Chtimes(d, tick, tick)
		}
	}
	entriesChanged := func(p string) {
		tick = tick.Add(time.Second)
		bumpDirs(filepath.Dir(p), filepath.Dir(p))
	}
	write := func(rel, content string) {
		p := filepath.Join(repo, rel)
		top := filepath.Dir(p) // the deepest directory that exists
		for _, err := os.Stat(top); err != nil; _, err = os.Stat(top) {
			top = filepath.Dir(top)
		}
		_, err := os.Lstat(p)
		existed := err == nil
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		tick = tick.Add(time.Second)
		os.Chtimes(p, tick, tick)
		if !existed {
			bumpDirs(filepath.Dir(p), top)
		}
	}
	for i := range 40 {
		rel := fmt.Sprintf("d%d/e%d/f%d", i%4, i%3, i)
		write(rel, fmt.Sprint("v0 ", i))
		files = append(files, rel)
	}
	for step := range 120 {
		if len(files) == 0 {
			break
		}
		i := rng.IntN(len(files))
		switch rng.IntN(9) {
		case 0: // modify, same size
			write(files[i], fmt.Sprintf("v%d %d", step%10, i))
		case 1: // delete
			os.Remove(filepath.Join(repo, files[i]))
			entriesChanged(filepath.Join(repo, files[i]))
			files = append(files[:i], files[i+1:]...)
		case 2: // add, maybe in a new directory
			rel := fmt.Sprintf("d%d/n%d/g%d", rng.IntN(5), rng.IntN(3), step)
			write(rel, fmt.Sprint("new ", step))
			files = append(files, rel)
		case 3: // rename within its directory
			to := filepath.Join(filepath.Dir(files[i]), fmt.Sprintf("r%d", step))
			os.Rename(filepath.Join(repo, files[i]), filepath.Join(repo, to))
			entriesChanged(filepath.Join(repo, to))
			files[i] = to
		case 4: // chmod +x
			p := filepath.Join(repo, files[i])
			os.Chmod(p, 0o755)
		case 5: // symlink beside it
			os.Symlink(files[i], filepath.Join(repo, fmt.Sprintf("link%d", step)))
			entriesChanged(filepath.Join(repo, fmt.Sprintf("link%d", step)))
		case 6: // ignore a level of directories, or stop ignoring it
			rule := ""
			if !ignoring {
				rule = "e1/\nn2/\n"
			}
			ignoring = !ignoring
			write(".gitignore", rule)
		case 7: // a directory's own rules: the same size, another pattern
			rules := []string{"f1*\n", "g1*\n", "r1*\n", "*.x\n"}
			write(fmt.Sprintf("d%d/.gitignore", rng.IntN(4)), rules[rng.IntN(len(rules))])
		case 8: // the repository's exclude file
			rules := []string{"", "e2/\n", "d3/\n", "f2*\n"}
			write(".git/info/exclude", rules[rng.IntN(len(rules))])
		}
		cached := snapshotOf(t, s, repo, cache, nil)
		fresh := snapshotOf(t, s, repo, "", nil)
		if cached.Tree != fresh.Tree {
			t.Fatalf("step %d: cached snapshot %s, fresh %s", step, cached.Tree, fresh.Tree)
		}
		// The cache it saved is complete: with nothing changed, the next
		// snapshot reads no file but the links (never cached) and lists
		// no directory.
		again := snapshotOf(t, s, repo, cache, nil)
		if again.Tree != fresh.Tree || again.Hashed != countLinks(t, repo) || vcs.ListedDirs(again) != 0 {
			t.Fatalf("step %d: unchanged, the cache read %d files (%d links) and listed %d directories; tree %s, want %s",
				step, again.Hashed, countLinks(t, repo), vcs.ListedDirs(again), again.Tree, fresh.Tree)
		}
	}
}

// countLinks counts the symlinks in a worktree, its .git aside.
func countLinks(t *testing.T, repo string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			t.Fatal(err)
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.Type()&os.ModeSymlink != 0:
			n++
		}
		return nil
	})
	return n
}

// SPEC §9.2: core.excludesFile is found as git finds it: the repository's
// config, then ~/.gitconfig, then $XDG_CONFIG_HOME/git/config, else the
// XDG default $XDG_CONFIG_HOME/git/ignore; "~/" is the home directory.
func TestExcludesFile(t *testing.T) {
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	repo := newGitRepo(t)
	common := filepath.Join(repo, ".git")

	if got, want := vcs.ExcludesFile(common), filepath.Join(xdg, "git", "ignore"); got != want {
		t.Fatalf("default = %q, want %q", got, want)
	}
	os.MkdirAll(filepath.Join(xdg, "git"), 0o755)
	os.WriteFile(filepath.Join(xdg, "git", "config"), []byte("[core]\n\texcludesFile = /xdg/excludes\n"), 0o644)
	if got := vcs.ExcludesFile(common); got != "/xdg/excludes" {
		t.Fatalf("from XDG config = %q", got)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesfile = ~/global-ignore\n"), 0o644)
	if got, want := vcs.ExcludesFile(common), filepath.Join(home, "global-ignore"); got != want {
		t.Fatalf("from ~/.gitconfig = %q, want %q", got, want)
	}
	gitCmd(t, repo, "config", "core.excludesFile", "/repo/excludes")
	if got := vcs.ExcludesFile(common); got != "/repo/excludes" {
		t.Fatalf("from the repository config = %q", got)
	}

	// And the snapshot honours it, as git does.
	os.WriteFile(filepath.Join(home, "global-ignore"), []byte("*.swp\n"), 0o644)
	gitCmd(t, repo, "config", "--unset", "core.excludesFile")
	writeFiles(t, repo, map[string]string{"a.txt": "a", "a.txt.swp": "editor swap"})
	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", func(o *vcs.SnapshotOptions) { o.ExcludesFile = vcs.ExcludesFile(common) })
	if got := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String()); got != "a.txt\n" {
		t.Fatalf("tree holds:\n%s", got)
	}
}

// SPEC §9.1: names git refuses in a tree are left out and reported, so
// `git fsck --strict` stays clean.
func TestSnapshotSkipsNamesGitRefuses(t *testing.T) {
	repo := newGitRepo(t)
	files := map[string]string{"ok.txt": "fine"}
	for _, dir := range []string{".GIT", ".Git", "git~1", ".git.", ".git ", ".g\u200cit"} {
		files[dir+"/config"] = "[core]\n"
	}
	writeFiles(t, repo, files)
	os.Symlink("ok.txt", filepath.Join(repo, ".gitmodules"))
	s := openRepo(t, repo)
	res := snapshotOf(t, s, repo, "", nil)
	if got := gitCmd(t, repo, "ls-tree", "-r", "--name-only", res.Tree.String()); got != "ok.txt\n" {
		t.Fatalf("tree holds:\n%s", got)
	}
	if len(res.Skipped) != 7 {
		t.Fatalf("skipped = %q", res.Skipped)
	}
	gitCmd(t, repo, "update-ref", "refs/ctxgit/t", mustCommit(t, s, res.Tree).String())
	gitCmd(t, repo, "fsck", "--strict", "--no-dangling")
}

func mustCommit(t *testing.T, s *vcs.GitStore, tree vcs.Hash) vcs.Hash {
	t.Helper()
	sig := vcs.Signature{Name: "t", Email: "t@t", When: time.Unix(0, 0).UTC()}
	c, err := vcs.WriteCommit(s, &vcs.Commit{Tree: tree, Author: sig, Committer: sig, Message: "t\n"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// requireGitAddTree fails unless tree is what `git add -A` and `git
// write-tree` record for repo, run on a copy of its index so the real one
// is untouched.
func requireGitAddTree(t *testing.T, repo string, tree vcs.Hash) {
	t.Helper()
	idx := filepath.Join(t.TempDir(), "index")
	data, _ := os.ReadFile(filepath.Join(repo, ".git/index"))
	os.WriteFile(idx, data, 0o644)
	gitEnv(t, repo, []string{"GIT_INDEX_FILE=" + idx}, "add", "-A")
	want := strings.TrimSpace(gitEnv(t, repo, []string{"GIT_INDEX_FILE=" + idx}, "write-tree"))
	if tree.String() != want {
		t.Fatalf("snapshot tree %s, git write-tree %s\nours:\n%s\ngit's:\n%s", tree, want,
			gitCmd(t, repo, "ls-tree", "-r", tree.String()), gitCmd(t, repo, "ls-tree", "-r", want))
	}
}

// A directory of many files is read in chunks by every worker: the tree
// is still git's, every file in it once, and the stat cache saved after
// it vouches for every file (nothing read again).
func TestWideDirectoryReadInChunks(t *testing.T) {
	repo := newGitRepo(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("wide/f%03d", i)] = fmt.Sprint("content ", i)
	}
	files["wide/sub/inner"] = "inner\n"
	writeFiles(t, repo, files)
	os.Symlink("f001", filepath.Join(repo, "wide", "link"))
	gitCmd(t, repo, "read-tree", "--empty")
	s := openRepo(t, repo)
	cache := filepath.Join(t.TempDir(), "statcache")
	var res *vcs.SnapshotResult
	for _, workers := range []int{1, 4} {
		res = snapshotOf(t, s, repo, cache, func(o *vcs.SnapshotOptions) { o.Workers = workers })
		requireGitAddTree(t, repo, res.Tree)
		os.Remove(cache)
	}
	if res.Hashed != 302 || res.Files != 302 {
		t.Fatalf("hashed %d, files %d, want 302 (300, inner, the link)", res.Hashed, res.Files)
	}
	res = snapshotOf(t, s, repo, cache, func(o *vcs.SnapshotOptions) { o.Workers = 4 })
	if again := snapshotOf(t, s, repo, cache, func(o *vcs.SnapshotOptions) { o.Workers = 4 }); again.Hashed != 1 || again.Tree != res.Tree {
		t.Fatalf("again: hashed %d (the link only, want 1), tree %s, want %s", again.Hashed, again.Tree, res.Tree)
	}
}
