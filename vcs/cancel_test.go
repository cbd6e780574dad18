package vcs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/vcs/vcstest"
)

// listFiles is every file below dir, relative, sorted: what an
// interrupted operation must leave exactly as it found it.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// tempFiles are the temporary files among files.
func tempFiles(files []string) []string {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "tmp_") || strings.HasSuffix(f, ".lock") {
			out = append(out, f)
		}
	}
	return out
}

// Issue 17 item 6: a snapshot interrupted at any of its checks (between
// directories of the walk, between files being hashed) returns the
// context's error, writes no tree, and once its pending batch is aborted
// leaves the store as it was: no temporary file, no object.
func TestSnapshotCancelled(t *testing.T) {
	root := t.TempDir()
	const dirs, files = 12, 3
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
		must(t, os.MkdirAll(dir, 0o755))
		for f := range files {
			must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", f)), fmt.Appendf(nil, "dir %d file %d\n", d, f), 0o644))
		}
	}
	s, storeDir := newPrivate(t)
	before := listFiles(t, storeDir)
	midWalk, midHash := 0, 0
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("the snapshot never finished")
		}
		pending, err := vcs.NewPending(s)
		must(t, err)
		progress := new(vcs.Progress)
		res, err := vcs.Snapshot(pending, vcs.SnapshotOptions{Root: root, Workers: 2, Progress: progress, Ctx: vcstest.CancelAfter(n)})
		if err == nil {
			if res.Files != dirs*files {
				t.Fatalf("finished snapshot holds %d files, want %d", res.Files, dirs*files)
			}
			pending.Abort()
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted at check %d: %v, want context.Canceled", n, err)
		}
		if res != nil {
			t.Fatalf("interrupted at check %d: a result with tree %s", n, res.Tree)
		}
		if sc := progress.Scanned.Load(); sc > 0 && sc < dirs*(files+1) {
			midWalk++
		}
		if h := progress.Hashed.Load(); h > 0 && h < progress.ToHash.Load() {
			midHash++
		}
		pending.Abort()
		if after := listFiles(t, storeDir); !slices.Equal(after, before) {
			t.Fatalf("interrupted at check %d: the store changed\nbefore %v\nafter  %v", n, before, after)
		}
	}
	if midWalk == 0 || midHash == 0 {
		t.Fatalf("interrupted %d times mid-walk and %d mid-hash: each must happen for the test to mean anything", midWalk, midHash)
	}
}

// Issue 17 item 6: a repack interrupted between objects removes its
// unfinished pack and deletes nothing: the store's files are exactly as
// before, and a repack run to the end afterwards still works.
func TestRepackCancelled(t *testing.T) {
	for name, mode := range map[string]vcs.RepackMode{"all": vcs.RepackAll, "loose": vcs.RepackLoose} {
		t.Run(name, func(t *testing.T) {
			s, dir := newPrivate(t)
			ids := chain(t, s, "a", 8)
			must(t, s.UpdateRef("refs/ctxgit/sessions/a", ids[0], vcs.ZeroHash))
			ageFiles(t, filepath.Join(dir, "objects"), 2*time.Hour)
			before := listFiles(t, dir)
			interrupted := 0
			for n := 0; ; n++ {
				if n > 1000 {
					t.Fatal("the repack never finished")
				}
				res, err := s.Repack(vcstest.CancelAfter(n), mode, []vcs.Hash{ids[0]})
				if err == nil {
					if res.Packed == 0 {
						t.Fatalf("finished repack packed nothing: %+v", res)
					}
					break
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("interrupted at check %d: %v, want context.Canceled", n, err)
				}
				interrupted++
				if after := listFiles(t, dir); !slices.Equal(after, before) {
					t.Fatalf("interrupted at check %d: the store changed\nbefore %v\nafter  %v", n, before, after)
				}
			}
			if interrupted < 10 {
				t.Fatalf("only %d interruption points: the repack was not interrupted between objects", interrupted)
			}
			if tmp := tempFiles(listFiles(t, dir)); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
			gitCmd(t, dir, "--git-dir="+dir, "fsck", "--strict", "--no-dangling", "--full")
		})
	}
}

// Issue 17 item 6: a local transfer interrupted between objects discards
// its batch: the destination store is as it was.
func TestCopyObjectsCancelled(t *testing.T) {
	src, _ := newPrivate(t)
	ids := chain(t, src, "a", 6)
	dst, dstDir := newPrivate(t)
	before := listFiles(t, dstDir)
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("the copy never finished")
		}
		copied, err := vcs.CopyObjects(vcstest.CancelAfter(n), src, dst, ids[:1])
		if err == nil {
			if copied == 0 {
				t.Fatal("finished copy copied nothing")
			}
			if n < 5 {
				t.Fatalf("finished after %d checks: not checked between objects", n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || copied != 0 {
			t.Fatalf("interrupted at check %d: %d, %v; want 0, context.Canceled", n, copied, err)
		}
		if after := listFiles(t, dstDir); !slices.Equal(after, before) {
			t.Fatalf("interrupted at check %d: the destination changed\nbefore %v\nafter  %v", n, before, after)
		}
	}
	if err := vcs.WalkReachable(dst, ids[:1], nil, func(vcs.Hash, vcs.ObjectType, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// Issue 17 item 6: a push to a local remote interrupted at any check
// moves no remote ref; once not interrupted it does.
func TestLocalPushCancelled(t *testing.T) {
	const ref = "refs/ctxgit/sessions/default"
	remote := bareRemote(t)
	srcDir := filepath.Join(t.TempDir(), "src.git")
	src, err := vcs.InitPrivate(srcDir)
	must(t, err)
	c1 := commitFiles(t, src, vcs.ZeroHash, map[string]string{"a.txt": "alpha", "dir/b.txt": "beta", "dir/c.txt": "gamma"})
	ep, err := vcs.ParseEndpoint(remote, "/")
	must(t, err)
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("the push never finished")
		}
		r, err := vcs.Connect(ep, vcs.ConnectOptions{Push: true, Ctx: vcstest.CancelAfter(n)})
		must(t, err)
		st, _, err := r.Push(src, []vcs.RefUpdate{{Name: ref, New: c1}}, noneKnown)
		r.Close()
		got := strings.TrimSpace(gitCmdMayFail(remote, "rev-parse", "--verify", "-q", ref))
		if err == nil {
			if len(st) != 1 || st[0].Err != "" || got != c1.String() {
				t.Fatalf("finished push: %v, remote ref %q", st, got)
			}
			if n < 5 {
				t.Fatalf("finished after %d checks: not checked between objects", n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || got != "" {
			t.Fatalf("interrupted at check %d: %v, remote ref %q; want context.Canceled and no ref", n, err, got)
		}
	}
}

// Issue 17 item 6: Ctrl-C stops the user's git in a network transfer at
// once, however long the remote would take: the error is the context's,
// not a timeout.
func TestNetworkTransferCancelled(t *testing.T) {
	t.Setenv("GIT_SSH", fakeSSH(t, "exec sleep 60"))
	t.Setenv("GIT_SSH_VARIANT", "simple")
	gitDir := filepath.Join(t.TempDir(), "store.git")
	_, err := vcs.InitPrivate(gitDir)
	must(t, err)
	ep, err := vcs.ParseEndpoint("ssh://example.invalid/remote.git", "/")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = vcs.Connect(ep, vcs.ConnectOptions{GitDir: gitDir, Timeout: time.Minute, Ctx: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("connect = %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("git was stopped only after %v", took)
	}
}

func gitCmdMayFail(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, _ := cmd.Output()
	return string(out)
}
