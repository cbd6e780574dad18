package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxgit/ctxgit/internal/wstest"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// restoreWS is a plain-directory workspace with a fixed clock, holding files.
func restoreWS(t *testing.T, files map[string]string) *ws {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTestFiles(t, dir, files)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := workspace.Open(workspace.Env{Now: func() time.Time { return now }, Getenv: func(string) string { return "" }, Cwd: dir}, dir)
	if err != nil {
		t.Fatal(err)
	}
	return &ws{w}
}

func writeTestFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustCheckpoint(t *testing.T, w *ws) *workspace.CheckpointResult {
	t.Helper()
	res, err := w.Checkpoint(workspace.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// listing is every entry below root (the store and local files included)
// with its type, mode and content, to prove a command changed nothing.
func listing(t *testing.T, root string) string {
	t.Helper()
	l, err := wstest.Listing(root)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func actions(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Action+" "+c.Path)
	}
	return out
}

// docs/cli.md#restore: paths are relative to the current directory inside the
// workspace, else to the root; nothing outside it, nothing of ctxgit's own.
func TestRestoreScope(t *testing.T) {
	w := restoreWS(t, map[string]string{"sub/a.txt": "a"})
	sub := filepath.Join(w.Root, "sub")
	type scopeCase struct {
		cwd   string
		paths []string
		want  []string
		err   string
	}
	tests := []scopeCase{
		{cwd: w.Root, paths: nil, want: nil},
		{cwd: w.Root, paths: []string{"b", "a", "a/", "./a"}, want: []string{"a", "b"}},
		{cwd: sub, paths: []string{"a.txt", "../top.txt"}, want: []string{"sub/a.txt", "top.txt"}},
		{cwd: sub, paths: []string{"."}, want: []string{"sub"}},
		{cwd: w.Root, paths: []string{"x", "."}, want: nil},
		{cwd: filepath.Dir(w.Root), paths: []string{"a.txt"}, want: []string{"a.txt"}},
		{cwd: w.Root, paths: []string{filepath.Join(w.Root, "sub", "a.txt")}, want: []string{"sub/a.txt"}},
		{cwd: w.Root, paths: []string{"../x"}, err: "is outside the workspace"},
		{cwd: sub, paths: []string{"../../x"}, err: "is outside the workspace"},
		{cwd: w.Root, paths: []string{"/etc/passwd"}, err: "is outside the workspace"},
		{cwd: w.Root, paths: []string{""}, err: "an empty path"},
		{cwd: w.Root, paths: []string{"a\x00b"}, err: "must not contain NUL bytes"},
		{cwd: w.Root, paths: []string{"caf\xe9.txt"}, want: []string{"caf\xe9.txt"}},
		{cwd: w.Root, paths: []string{".git/config"}, err: "inside a .git directory"},
		{cwd: w.Root, paths: []string{"x/.GIT/config"}, err: "inside a .git directory"},
		{cwd: w.Root, paths: []string{".ctxgit/local"}, err: "machine-local files and store"},
		{cwd: w.Root, paths: []string{".ctxgit/store.git/HEAD"}, err: "machine-local files and store"},
		{cwd: w.Root, paths: []string{"CONTEXT_RECOVERY.md"}, err: "it is never restored"},
	}
	if runtime.GOOS == "windows" {
		// Rooted without a drive: the drive's root, not the workspace's.
		tests = append(tests, scopeCase{cwd: w.Root, paths: []string{`\etc\passwd`}, err: "is outside the workspace"})
	}
	for _, tc := range tests {
		w.Env.Cwd = tc.cwd
		got, err := w.restoreScope(tc.paths)
		if tc.err != "" {
			if !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("restoreScope(%q) from %s = %v, want a usage error with %q", tc.paths, tc.cwd, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("restoreScope(%q) from %s = %q, %v; want %q", tc.paths, tc.cwd, got, err, tc.want)
		}
	}
}

// docs/cli.md#restore: a dry run plans exactly what the restore does and changes
// nothing anywhere: files, objects, refs, lock, stat cache.
func TestRestoreDryRunChangesNothing(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1", "gone.txt": "g", "d/x": "x"})
	mustCheckpoint(t, w)
	writeTestFiles(t, w.Root, map[string]string{"a.txt": "a2", "new.txt": "n", "d/y": "y"})
	os.Remove(filepath.Join(w.Root, "gone.txt"))
	mustCheckpoint(t, w)
	writeTestFiles(t, w.Root, map[string]string{"a.txt": "a3"})

	before := listing(t, w.Root)
	res, err := w.Restore(Options{Name: "cp_001", DryRun: true, Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if after := listing(t, w.Root); after != before {
		t.Errorf("a dry run changed the workspace:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	want := []string{"write a.txt", "delete d/y", "create gone.txt", "delete new.txt"}
	if got := actions(res.Changes); !slices.Equal(got, want) {
		t.Errorf("dry run plans %q, want %q", got, want)
	}
	if res.Safety != nil || !res.DryRun {
		t.Errorf("dry run: Safety = %v, DryRun = %v", res.Safety, res.DryRun)
	}

	// The real restore does what the dry run said.
	res, err = w.Restore(Options{Name: "cp_001", Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res.Changes); !slices.Equal(got, want) {
		t.Errorf("restore did %q, want %q", got, want)
	}
	for p, want := range map[string]string{"a.txt": "a1", "gone.txt": "g", "d/x": "x"} {
		if data, err := os.ReadFile(w.Path(p)); err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want %q", p, data, err, want)
		}
	}
	for _, p := range []string{"new.txt", "d/y"} {
		if _, err := os.Lstat(w.Path(p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
	if res.Safety == nil || res.Safety.Checkpoint.Meta.Trigger != spec.TriggerRestore || res.Safety.Checkpoint.Meta.CheckpointID != "cp_003" {
		t.Fatalf("safety checkpoint = %+v", res.Safety)
	}
	// The safety checkpoint holds the unsaved edit the restore replaced.
	store, _ := w.Store()
	c, err := vcs.ReadCommit(store, res.Safety.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := vcs.ReadFileAt(store, c.Tree, "a.txt"); err != nil || string(data) != "a3" {
		t.Errorf("safety checkpoint a.txt = %q, %v; want a3", data, err)
	}
}

// docs/cli.md#restore: a restore runs under the workspace lock; while another
// process holds it, the restore fails with a conflict and writes nothing.
func TestRestoreUnderLock(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1"})
	mustCheckpoint(t, w)
	writeTestFiles(t, w.Root, map[string]string{"a.txt": "a2"})
	w.Config.Lock.Timeout = spec.Duration(100 * time.Millisecond)
	l, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	before := listing(t, w.Root)
	if _, err := w.Restore(Options{Name: "cp_001"}); !errors.Is(err, spec.ErrConflict) || !strings.Contains(err.Error(), "workspace is locked") {
		t.Fatalf("Restore under a held lock = %v, want the lock conflict", err)
	}
	if after := listing(t, w.Root); after != before {
		t.Errorf("a locked-out restore changed the workspace")
	}
	// A dry run reads only and takes no lock.
	if _, err := w.Restore(Options{Name: "cp_001", DryRun: true}); err != nil {
		t.Errorf("dry run under a held lock = %v", err)
	}
}

// docs/cli.md#restore: content the safety checkpoint cannot hold is refused, every
// path named, before anything is written; --force overwrites it.
func TestRestoreRefusal(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1", "big.bin": "small", "keys/app.key": "k1"})
	w.Config.Snapshot.SecretExcludes = nil
	mustCheckpoint(t, w)
	w.Config.Snapshot.SecretExcludes = []string{"*.key"}
	w.Config.Snapshot.MaxFileSize = 200 // above .ctxgit/.gitignore
	writeTestFiles(t, w.Root, map[string]string{"a.txt": "a2", "big.bin": strings.Repeat("x", 300), "keys/app.key": "k2"})

	before := listing(t, w.Root)
	_, err := w.Restore(Options{Name: "cp_001"})
	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, spec.ErrConflict) || spec.ExitCode(err) != spec.ExitConflict {
		t.Fatalf("Restore = %v, want a refusal (exit 5)", err)
	}
	if got := actions(refused.Refused); !slices.Equal(got, []string{"refuse big.bin", "refuse keys/app.key"}) {
		t.Errorf("refused %q", got)
	}
	for _, want := range []string{"big.bin: larger than snapshot.max_file_size (300 bytes)", `keys/app.key: a secret (snapshot.secret_excludes "*.key")`, "nothing was restored"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if after := listing(t, w.Root); after != before {
		t.Errorf("a refused restore changed the workspace")
	}

	res, err := w.Restore(Options{Name: "cp_001", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res.Changes); !slices.Equal(got, []string{"write a.txt", "write big.bin", "write keys/app.key"}) {
		t.Errorf("forced restore did %q", got)
	}
	for _, c := range res.Changes {
		if c.Path != "a.txt" && (!c.forced || !strings.HasPrefix(c.Reason, "forced: ")) {
			t.Errorf("%s: forced = %v, reason %q", c.Path, c.forced, c.Reason)
		}
	}
	if data, _ := os.ReadFile(w.Path("keys/app.key")); string(data) != "k1" {
		t.Errorf("keys/app.key = %q after --force", data)
	}
}

func TestRestoreRefusedErrorText(t *testing.T) {
	one := &RefusedError{Refused: []Change{{Path: ".env", Reason: "a secret"}}}
	if got, want := one.Error(), "restore refused: .env: a secret: the safety checkpoint cannot hold it; --force overwrites it; nothing was restored"; got != want {
		t.Errorf("one refusal reads %q, want %q", got, want)
	}
	many := &RefusedError{Safety: "default:cp_004"}
	for i := range 5 {
		many.Refused = append(many.Refused, Change{Path: fmt.Sprintf("f%d", i), Reason: "ignored"})
	}
	got := many.Error()
	for _, want := range []string{"5 paths hold", "f0: ignored; f1: ignored; f2: ignored; and 2 more", "while the safety checkpoint default:cp_004 was taken"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not say %q", got, want)
		}
	}
	if strings.Contains(got, "\n") {
		t.Errorf("refusal spans lines: %q", got)
	}
}

// docs/cli.md#restore: a file the checkpoint left out for its size was there all
// the same: --delete keeps it.
func TestRestoreKeepsWhatTheCheckpointLeftOutForSize(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1", "big.bin": "more than eight bytes"})
	w.Config.Snapshot.MaxFileSize = 8
	mustCheckpoint(t, w)
	writeTestFiles(t, w.Root, map[string]string{"big.bin": "small", "extra": "e"})
	res, err := w.Restore(Options{Name: "cp_001", Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res.Changes); !slices.Equal(got, []string{"keep big.bin", "delete extra"}) {
		t.Errorf("restore did %q", got)
	}
	if data, _ := os.ReadFile(w.Path("big.bin")); string(data) != "small" {
		t.Errorf("big.bin = %q", data)
	}
}

// docs/cli.md#restore: a checkpoint from elsewhere whose tree climbs out of the
// workspace or into .git is refused whole (exit 3), nothing written.
func TestRestoreRefusesUnsafeTreePaths(t *testing.T) {
	for _, bad := range []string{"../escape.txt", ".git/hooks/post-checkout", "sub/.GIT/config"} {
		t.Run(bad, func(t *testing.T) {
			w := restoreWS(t, map[string]string{"a.txt": "a1"})
			cp := mustCheckpoint(t, w)
			store, _ := w.Store()
			c, err := vcs.ReadCommit(store, cp.Commit)
			if err != nil {
				t.Fatal(err)
			}
			blob, _ := store.WriteObject(vcs.BlobObject, []byte("#!/bin/sh\necho pwned\n"))
			tree, err := vcs.Overlay(store, c.Tree, []vcs.PathEntry{{Path: bad, Mode: vcs.ModeExecutable, ID: blob}})
			if err != nil {
				t.Fatal(err)
			}
			evil := &vcs.Commit{Tree: tree, Parents: []vcs.Hash{cp.Commit}, Author: c.Author, Committer: c.Committer, Message: c.Message}
			id, err := vcs.WriteCommit(store, evil)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.UpdateRef(w.SessionRef("default"), id, cp.Commit); err != nil {
				t.Fatal(err)
			}
			before := listing(t, filepath.Dir(w.Root))
			_, err = w.Restore(Options{Name: id.String()})
			if !errors.Is(err, spec.ErrInvalid) || !strings.Contains(err.Error(), "which ctxgit never writes") {
				t.Fatalf("Restore of a tree holding %s = %v, want an invalid-input refusal", bad, err)
			}
			if after := listing(t, filepath.Dir(w.Root)); after != before {
				t.Errorf("an unsafe checkpoint changed the disk:\n%s", after)
			}
		})
	}
}

// The last check before writing: a file changed after the safety
// checkpoint is never overwritten.
func TestVerifyRestore(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1", "run.sh": "echo"})
	os.Chmod(w.Path("run.sh"), 0o755)
	blob := func(s string) vcs.Hash { return vcs.HashObject(vcs.BlobObject, []byte(s)) }
	type row struct {
		path string
		held vcs.TreeEntry
		ok   bool
	}
	rows := []row{
		{"a.txt", vcs.TreeEntry{Mode: vcs.ModeFile, ID: blob("a1")}, true},
		{"a.txt", vcs.TreeEntry{Mode: vcs.ModeFile, ID: blob("a0")}, false},
		{"missing", vcs.TreeEntry{Mode: vcs.ModeFile, ID: blob("")}, false},
	}
	if wstest.ModesExist() {
		rows = append(rows,
			row{"a.txt", vcs.TreeEntry{Mode: vcs.ModeExecutable, ID: blob("a1")}, false},
			row{"run.sh", vcs.TreeEntry{Mode: vcs.ModeExecutable, ID: blob("echo")}, true},
			row{"run.sh", vcs.TreeEntry{Mode: vcs.ModeFile, ID: blob("echo")}, false})
	} else {
		// No executable bit on disk: the checkpoint's mode decides,
		// whichever it is (SPEC §9.7, fileMode=false).
		rows = append(rows,
			row{"a.txt", vcs.TreeEntry{Mode: vcs.ModeExecutable, ID: blob("a1")}, true},
			row{"run.sh", vcs.TreeEntry{Mode: vcs.ModeExecutable, ID: blob("echo")}, true},
			row{"run.sh", vcs.TreeEntry{Mode: vcs.ModeFile, ID: blob("echo")}, true})
	}
	if os.Symlink("a.txt", w.Path("link")) == nil && !w.FSFlags().NoSymlinks {
		rows = append(rows,
			row{"link", vcs.TreeEntry{Mode: vcs.ModeSymlink, ID: blob("a.txt")}, true},
			row{"link", vcs.TreeEntry{Mode: vcs.ModeFile, ID: blob("a1")}, false})
	} else {
		t.Log("no symbolic links here: the link rows are not run")
	}
	for _, tc := range rows {
		err := w.verifyRestore([]Change{{Path: tc.path, Action: Write, held: tc.held}}, "default:cp_009")
		if (err == nil) != tc.ok {
			t.Errorf("verify %s against %o %s = %v, want ok=%v", tc.path, tc.held.Mode, tc.held.ID.Short(), err, tc.ok)
		}
		if err != nil && (!errors.Is(err, spec.ErrConflict) || !strings.Contains(err.Error(), "changed after the safety checkpoint default:cp_009")) {
			t.Errorf("verify error = %v", err)
		}
	}
	// A path to create must still be absent.
	if err := w.verifyRestore([]Change{{Path: "a.txt", Action: Create}}, "s"); err == nil {
		t.Error("a create over a file that appeared was not caught")
	}
	if err := w.verifyRestore([]Change{{Path: "a.txt/below", Action: Create}, {Path: "new", Action: Create}}, "s"); err != nil {
		t.Errorf("creates = %v", err)
	}
}

func TestRestorePerm(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "f")
	os.WriteFile(existing, nil, 0o600)
	os.Chmod(existing, 0o640)
	readOnly := filepath.Join(dir, "ro")
	os.WriteFile(readOnly, nil, 0o440)
	for _, tc := range []struct {
		path string
		mode uint32
		want fs.FileMode
	}{
		{filepath.Join(dir, "new"), vcs.ModeFile, 0o644},
		{filepath.Join(dir, "new"), vcs.ModeExecutable, 0o755},
		{existing, vcs.ModeFile, 0o640},
		{existing, vcs.ModeExecutable, 0o750},
		{readOnly, vcs.ModeFile, 0o440},
		{readOnly, vcs.ModeExecutable, 0o550},
	} {
		// Compared as the system keeps them: on Windows, whether the
		// file is read-only.
		if got := restorePerm(tc.path, tc.mode); wstest.Perm(got, false) != wstest.Perm(tc.want, false) {
			t.Errorf("restorePerm(%s, %o) = %o, want %o", filepath.Base(tc.path), tc.mode, got, tc.want)
		}
	}
}

// docs/cli.md#restore: a failure after the safety checkpoint (here, an object gone
// from the store) is an I/O error (exit 1) that names the safety
// checkpoint to undo with.
func TestRestoreFailureNamesSafetyCheckpoint(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1"})
	mustCheckpoint(t, w)
	writeTestFiles(t, w.Root, map[string]string{"a.txt": "a2"})
	id := vcs.HashObject(vcs.BlobObject, []byte("a1")).String()
	if err := os.Remove(w.Path(spec.PrivateStoreDir + "/objects/" + id[:2] + "/" + id[2:])); err != nil {
		t.Fatal(err)
	}
	res, err := w.Restore(Options{Name: "cp_001"})
	if err == nil || spec.ExitCode(err) != spec.ExitFailure {
		t.Fatalf("Restore with a missing object = %v (exit %d), want exit 1", err, spec.ExitCode(err))
	}
	for _, want := range []string{"a.txt: reading it from the checkpoint", "the safety checkpoint default:cp_002 holds the workspace as it was before", "ctxgit restore --delete default:cp_002"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if res == nil || res.Safety == nil {
		t.Fatal("no safety checkpoint in the result")
	}
	if data, _ := os.ReadFile(w.Path("a.txt")); string(data) != "a2" {
		t.Errorf("a.txt = %q", data)
	}
}

// Issue 13 item 11, docs/cli.md#restore: a retry after a restore that failed past
// its safety checkpoint takes no second one: the newest checkpoint, a
// safety checkpoint holding the workspace as it is, is the safety
// checkpoint again. Any other newest checkpoint is not reused.
func TestRestoreRetryReusesSafety(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a1"})
	mustCheckpoint(t, w)
	writeTestFiles(t, w.Root, map[string]string{"a.txt": "a2"})
	// What a restore that failed after its safety checkpoint leaves.
	if _, err := w.Checkpoint(workspace.CheckpointOptions{Trigger: spec.TriggerRestore, Message: "before restoring default:cp_001 (whole snapshot)"}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Restore(Options{Name: "cp_001"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Safety == nil || res.Safety.Checkpoint.Meta.CheckpointID != "cp_002" {
		t.Fatalf("safety checkpoint %+v, want cp_002 reused", res.Safety)
	}
	// Issue 22: the restore ends with a checkpoint of the restored
	// workspace, the session's newest.
	entries, _ := w.Log(spec.DefaultSession, 0)
	if len(entries) != 3 || res.After == nil || res.After.Commit != entries[0].Commit || res.After.Checkpoint.Meta.Trigger != spec.TriggerRestored {
		t.Errorf("%d checkpoints after the retry, want 3, the newest the restored workspace (%+v)", len(entries), res.After)
	}
	if data, _ := os.ReadFile(w.Path("a.txt")); string(data) != "a1" {
		t.Errorf("a.txt = %q after the restore", data)
	}

	// A pre-restore checkpoint that no longer matches the workspace, and
	// a matching checkpoint of another trigger, are not reused.
	for i, trigger := range []string{spec.TriggerRestore, spec.TriggerManual} {
		writeTestFiles(t, w.Root, map[string]string{"a.txt": fmt.Sprint("a", i+3)})
		if _, err := w.Checkpoint(workspace.CheckpointOptions{Trigger: trigger}); err != nil {
			t.Fatal(err)
		}
		if trigger == spec.TriggerRestore {
			writeTestFiles(t, w.Root, map[string]string{"a.txt": "changed since"})
		}
		before, _ := w.Log(spec.DefaultSession, 0)
		res, err := w.Restore(Options{Name: "cp_001"})
		if err != nil {
			t.Fatal(err)
		}
		after, _ := w.Log(spec.DefaultSession, 0)
		if len(after) != len(before)+2 || res.Safety.Commit != after[1].Commit || res.After.Commit != after[0].Commit {
			t.Errorf("%s head: %d checkpoints before, %d after; safety %s", trigger, len(before), len(after), res.Safety.Checkpoint.Meta.CheckpointID)
		}
	}
}

// Issue 13 item 11: a directory swapped for a symlink after the plan was
// made is not written through, nor are directories made below its
// target: the write fails naming it.
func TestRestoreApplyNeverFollowsLinks(t *testing.T) {
	w := restoreWS(t, map[string]string{"a.txt": "a"})
	mustCheckpoint(t, w)
	store, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.WriteObject(vcs.BlobObject, []byte("restored\n"))
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	wstest.Symlink(t, outside, w.Path("d"))
	changes := []Change{{Path: "d/sub/x.txt", Action: Create, want: vcs.TreeEntry{Name: "x.txt", Mode: vcs.ModeFile, ID: id}}}
	err = w.applyRestore(context.Background(), store, changes)
	if err == nil || !strings.Contains(err.Error(), "not restored: d is no longer a directory") {
		t.Fatalf("applyRestore through a link = %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written through the link: %v", entries)
	}
}
