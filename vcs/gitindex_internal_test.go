package vcs

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/ctxgit/ctxgit/internal/wstest"
)

func indexGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	wstest.NeedGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// indexListing is what readGitIndex gives, one "mode path" line an entry.
func indexListing(data []byte) (string, error) {
	var b strings.Builder
	begun := false
	err := readGitIndex(bytes.NewReader(data), int64(len(data)), func(int, int) { begun = true }, func(name []byte, mode uint32) {
		if !begun {
			panic("an entry before begin")
		}
		fmt.Fprintf(&b, "%06o %s\n", mode, name)
	})
	return b.String(), err
}

// gitListing is the same from git ls-files --stage.
func gitListing(t *testing.T, repo string) string {
	var b strings.Builder
	for _, rec := range strings.Split(indexGit(t, repo, "ls-files", "--stage", "-z"), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, _ := strings.Cut(rec, "\t")
		fmt.Fprintf(&b, "%s %s\n", strings.Fields(meta)[0], path)
	}
	return b.String()
}

// TestReadGitIndexAsGitReadsIt reads indexes git itself wrote, in each
// version and with the extensions git writes, and compares every path and
// mode with git ls-files --stage.
func TestReadGitIndexAsGitReadsIt(t *testing.T) {
	repo := t.TempDir()
	indexGit(t, repo, "init", "-q")
	files := map[string]string{
		"a.txt": "a", "b/c.go": "c", "b/d/e.go": "e", "b/d/f.go": "f", "b/da": "da",
		"name with space": "s", "ü/ñ.txt": "u", "x.sh": "#!/bin/sh\n",
	}
	for i := range 40 {
		files[fmt.Sprintf("deep/dir/%02d/file%03d.txt", i%7, i)] = fmt.Sprint(i)
	}
	for name, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	os.Chmod(filepath.Join(repo, "x.sh"), 0o755)
	indexGit(t, repo, "add", "-A")
	os.Symlink("a.txt", filepath.Join(repo, "link"))
	indexGit(t, repo, "add", "link")
	blob := strings.TrimSpace(indexGit(t, repo, "hash-object", "-w", "a.txt"))
	// A path longer than the 12-bit length field (4095 bytes), which no
	// file system here would let us create: only the index holds it.
	long := strings.Repeat("l/", 2100) + "end"
	indexGit(t, repo, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	indexGit(t, repo, "commit", "-q", "-m", "one") // the TREE extension
	// An intent-to-add entry sets the extended flags (version 3).
	os.WriteFile(filepath.Join(repo, "later.txt"), []byte("later"), 0o644)
	indexGit(t, repo, "add", "-N", "later.txt")
	indexGit(t, repo, "config", "core.untrackedCache", "true")
	indexGit(t, repo, "config", "index.recordEndOfIndexEntries", "true")
	indexGit(t, repo, "config", "index.recordOffsetTable", "true")
	indexGit(t, repo, "config", "index.threads", "2")
	indexGit(t, repo, "status", "--porcelain") // writes the UNTR extension

	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			indexGit(t, repo, "update-index", "--index-version", version)
			indexGit(t, repo, "status", "--porcelain")
			data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			// git 2.39 writes version 2 as 3 when an entry has extended flags.
			if got := fmt.Sprint(data[7]); version != "2" && got != version {
				t.Fatalf("index is version %s, want %s", got, version)
			}
			got, err := indexListing(data)
			if err != nil {
				t.Fatal(err)
			}
			want := gitListing(t, repo)
			if got != want {
				t.Fatalf("read\n%s\ngit ls-files --stage\n%s", got, want)
			}
			if !strings.Contains(got, "120000 link\n") || !strings.Contains(got, "100755 x.sh\n") || !strings.Contains(got, long+"\n") {
				t.Fatalf("modes or the long path lost:\n%s", got)
			}
			for _, ext := range []string{"TREE", "UNTR", "EOIE", "IEOT"} {
				if !bytes.Contains(data, []byte(ext)) {
					t.Errorf("git wrote no %s extension: the test does not cover it", ext)
				}
			}

			// git accepts a checksum of zeros (index.skipHash); any other
			// wrong one is refused.
			zeroed := append([]byte(nil), data...)
			clear(zeroed[len(zeroed)-20:])
			if got, err := indexListing(zeroed); err != nil || got != want {
				t.Fatalf("zero checksum: %v", err)
			}
			bad := append([]byte(nil), data...)
			bad[20] ^= 1
			if _, err := indexListing(bad); err == nil || !strings.Contains(err.Error(), "checksum") {
				t.Fatalf("a flipped byte gave %v, want a checksum mismatch", err)
			}
			for _, n := range []int{0, 11, 12, 100, len(data) / 2, len(data) - 21, len(data) - 1} {
				if _, err := indexListing(data[:n]); err == nil {
					t.Fatalf("cut to %d bytes: no error", n)
				}
			}
		})
	}
}

// TestReadGitIndexRequiredExtension: an index git splits (its "link"
// extension, entries that stand for the shared index's with no path) is
// refused, not half read.
func TestReadGitIndexRequiredExtension(t *testing.T) {
	repo := t.TempDir()
	indexGit(t, repo, "init", "-q")
	os.WriteFile(filepath.Join(repo, "a"), []byte("a"), 0o644)
	indexGit(t, repo, "add", "a")
	indexGit(t, repo, "update-index", "--split-index")
	data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexListing(data); err == nil {
		t.Fatalf("split index read with %v", err)
	}
}

// TestReadGitIndexMalformed: hand-made indexes that are wrong each way the
// reader checks; every one is an error, none a panic.
func TestReadGitIndexMalformed(t *testing.T) {
	entry := func(flags uint16, name string, pad int) []byte {
		e := make([]byte, 62)
		e[26] = 0x81 // mode 0100644
		e[27] = 0xa4
		e[60], e[61] = byte(flags>>8), byte(flags)
		e = append(e, name...)
		return append(e, make([]byte, pad)...)
	}
	build := func(version byte, count byte, body ...[]byte) []byte {
		b := []byte{'D', 'I', 'R', 'C', 0, 0, 0, version, 0, 0, 0, count}
		for _, p := range body {
			b = append(b, p...)
		}
		sum := sha1.Sum(b)
		return append(b, sum[:]...)
	}
	good := build(2, 1, entry(1, "a", 1))
	if got, err := indexListing(good); err != nil || got != "100644 a\n" {
		t.Fatalf("the good one: %q, %v", got, err)
	}
	v4 := func(strip byte, suffix string, nameLen int) []byte {
		e := entry(uint16(nameLen), "", 0)
		e = append(e, strip)
		return append(append(e, suffix...), 0)
	}
	if got, err := indexListing(build(4, 2, v4(0, "ab", 2), v4(1, "c", 2))); err != nil || got != "100644 ab\n100644 ac\n" {
		t.Fatalf("version 4: %q, %v", got, err)
	}
	for name, data := range map[string][]byte{
		"signature":         append([]byte("XIRC"), good[4:]...),
		"version 1":         build(1, 1, entry(1, "a", 1)),
		"version 5":         build(5, 1, entry(1, "a", 1)),
		"padding not NUL":   build(2, 1, entry(1, "a", 0), []byte{'x'}),
		"empty path":        build(2, 1, entry(0, "", 2)),
		"NUL in path":       build(2, 1, entry(3, "a\x00b", 5)),
		"more entries":      build(2, 2, entry(1, "a", 1)),
		"strip too long":    build(4, 2, v4(0, "ab", 2), v4(3, "c", 1)),
		"strip first":       build(4, 1, v4(1, "a", 1)),
		"v4 length":         build(4, 1, append(entry(5, "", 0), 0, 'a', 0)),
		"lowercase ext":     build(2, 1, entry(1, "a", 1), []byte("abcd\x00\x00\x00\x00")),
		"extension too big": build(2, 1, entry(1, "a", 1), []byte("ABCD\x00\x00\x10\x00")),
		"varint overflow":   build(4, 1, append(entry(1, "", 0), bytes.Repeat([]byte{0xff}, 12)...)),
	} {
		if got, err := indexListing(data); err == nil {
			t.Errorf("%s: read as %q, want an error", name, got)
		}
	}
	// Fewer than 8 bytes between the last entry and the checksum are no
	// extension: git skips them, and so does the reader.
	if got, err := indexListing(build(2, 1, entry(1, "a", 1), []byte("ABC"))); err != nil || got != "100644 a\n" {
		t.Fatalf("trailing bytes: %q, %v", got, err)
	}
}

// FuzzReadGitIndex: no input panics the reader, and whatever it and
// go-git's decoder both read, they read alike.
func FuzzReadGitIndex(f *testing.F) {
	entry := make([]byte, 62)
	entry[26], entry[27], entry[61] = 0x81, 0xa4, 1
	body := append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"), entry...)
	body = append(body, 'a', 0)
	sum := sha1.Sum(body)
	f.Add(append(body, sum[:]...))
	body4 := append([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"), entry...)
	body4 = append(body4, 0, 'a', 0)
	sum = sha1.Sum(body4)
	f.Add(append(body4, sum[:]...))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := indexListing(data)
		if err != nil {
			return
		}
		var idx index.Index
		if index.NewDecoder(bytes.NewReader(data)).Decode(&idx) != nil {
			return // go-git refuses some indexes git reads (a zero checksum)
		}
		var want strings.Builder
		for _, e := range idx.Entries {
			fmt.Fprintf(&want, "%06o %s\n", uint32(e.Mode), e.Name)
		}
		if got != want.String() {
			t.Fatalf("read\n%q\ngo-git\n%q", got, want.String())
		}
	})
}
