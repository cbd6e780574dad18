package vcs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A delta claiming a huge result is refused as it is applied, not
// allocated up front.
func TestApplyDeltaHugeClaim(t *testing.T) {
	base := []byte("base")
	// base size 4; result size 16 GiB (varint); one insert of 1 byte.
	delta := []byte{4, 0x80, 0x80, 0x80, 0x80, 0x40, 1, 'x'}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := applyDelta(base, delta); err == nil {
		t.Fatal("a delta claiming 16 GiB from 1 byte was applied")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("applying it allocated %d bytes", grew)
	}
}

// No part of a password shows in a message, an @ in it included.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pa@ss@host/repo": "https://user@host/repo",
		"https://user:secret@host/a@b": "https://user@host/a@b",
		"https://user@host/repo":       "https://user@host/repo",
		"https://host/repo":            "https://host/repo",
		"host:path/repo":               "host:path/repo",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
	// git's own text can name the URL too.
	if got := redactURLs("fatal: repository 'https://u:hunter2@h/r/' not found"); strings.Contains(got, "hunter2") {
		t.Errorf("redactURLs kept the password: %q", got)
	}
}

// git ls-remote's listing is held to the limit on refs under
// refs/ctxgit/; other refs and peeled tags do not count, and a line that
// is not a ref is an error.
func TestParseLsRemoteLimits(t *testing.T) {
	e := &Endpoint{Scheme: "https", raw: "https://h/r.git"}
	id := strings.Repeat("a", 40)
	var b strings.Builder
	for i := range MaxRemoteRefs {
		fmt.Fprintf(&b, "%s\trefs/ctxgit/sessions/s%d\n", id, i)
	}
	fmt.Fprintf(&b, "%s\trefs/heads/main\n%s\trefs/tags/v1^{}\n", id, id)
	refs, err := parseLsRemote(e, []byte(b.String()))
	if err != nil || len(refs) != MaxRemoteRefs+1 {
		t.Fatalf("at the limit: %d refs, %v", len(refs), err)
	}
	fmt.Fprintf(&b, "%s\trefs/ctxgit/sessions/one-more\n", id)
	if _, err := parseLsRemote(e, []byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than 10000 refs under refs/ctxgit/") {
		t.Fatalf("past the limit: %v", err)
	}
	if _, err := parseLsRemote(e, []byte("garbage\n")); err == nil || !strings.Contains(err.Error(), `printed "garbage", not a ref`) {
		t.Fatalf("garbage: %v", err)
	}
}

// A local remote is held to the same limits before its refs are read: a
// packed-refs that is a pipe or too large, and too many loose refs.
func TestLocalRemoteLimits(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"objects", "refs/heads", "refs/ctxgit/sessions"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	e := &Endpoint{Scheme: "file", Path: dir, raw: dir}
	if err := checkLocalRefLimits(e, dir); err != nil {
		t.Fatalf("an empty repository: %v", err)
	}
	big := filepath.Join(dir, "packed-refs")
	f, _ := os.Create(big)
	f.Truncate(MaxAdvertisement + 1)
	f.Close()
	if err := checkLocalRefLimits(e, dir); err == nil || !strings.Contains(err.Error(), "packed-refs is over 16 MiB") {
		t.Fatalf("a huge packed-refs: %v", err)
	}
	os.Remove(big)
	if runtime.GOOS != "windows" { // no /dev/zero, and symlinks need a privilege
		os.Symlink("/dev/zero", big)
		if err := checkLocalRefLimits(e, dir); err == nil || !strings.Contains(err.Error(), "packed-refs is not a regular file") {
			t.Fatalf("packed-refs linked to /dev/zero: %v", err)
		}
		os.Remove(big)
	}
	// The limit, lowered so the test writes 11 refs, not 10,001.
	defer func(n int) { refLimit = n }(refLimit)
	refLimit = 10
	id := []byte(strings.Repeat("a", 40) + "\n")
	for i := range refLimit + 1 {
		os.WriteFile(filepath.Join(dir, "refs/ctxgit/sessions", fmt.Sprintf("s%d", i)), id, 0o644)
	}
	if _, err := Connect(e, ConnectOptions{}); err == nil || !strings.Contains(err.Error(), "more than 10 refs") {
		t.Fatalf("too many loose refs: %v", err)
	}
}

// git push --porcelain is read per ref: accepted, refused with the
// remote's reason, and a stale lease as the ref having moved.
func TestParsePushPorcelain(t *testing.T) {
	out := "To https://h/r.git\n" +
		"*\t" + strings.Repeat("a", 40) + ":refs/ctxgit/sessions/a\t[new reference]\n" +
		"!\t" + strings.Repeat("b", 40) + ":refs/ctxgit/sessions/b\t[remote rejected] (pre-receive hook declined)\n" +
		"!\t" + strings.Repeat("c", 40) + ":refs/ctxgit/sessions/c\t[rejected] (stale info)\n" +
		"Done\n"
	got := parsePushPorcelain([]byte(out))
	want := []RefStatus{
		{Name: "refs/ctxgit/sessions/a"},
		{Name: "refs/ctxgit/sessions/b", Err: "pre-receive hook declined"},
		{Name: "refs/ctxgit/sessions/c", Err: "the ref moved while pushing (stale info)"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("parsed %v, want %v", got, want)
	}
}

// The staging refs a killed fetch left are removed by a later one once
// they are older than the limit; a running fetch's are kept.
func TestRemoveStaleStages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s.git")
	g, err := InitPrivate(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.WriteObject(BlobObject, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	old := fmt.Sprintf("%s%d-aaaa/ctxgit/sessions/default", stagePrefix, now.Add(-2*time.Hour).Unix())
	fresh := fmt.Sprintf("%s%d-bbbb/ctxgit/sessions/default", stagePrefix, now.Add(-time.Minute).Unix())
	odd := stagePrefix + "garbage/ctxgit/sessions/default"
	for _, n := range []string{old, fresh, odd} {
		if err := g.UpdateRef(n, id, ZeroHash); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleStages(g, now, time.Hour)
	refs, _ := g.ListRefs(stagePrefix)
	if len(refs) != 1 || refs[0].Name != fresh {
		t.Fatalf("left %v, want only %s", refs, fresh)
	}
}
