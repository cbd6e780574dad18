package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// docs/cli.md#show: any checkpoint name either resolves to a checkpoint of the
// chain it names or fails with one line and a usage, invalid or not-found
// exit code; never a panic, never a ref outside refs/ctxgit/.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"", "@", "@~1", "@~2", "@~99999999999999999999", "cp_001", "cp_002", "cp_000",
		"default:cp_003", "other:cp_001", "../../heads/main:cp_001", "default:@~1", "abcd", "0000", "ffffffffffffffffffffffffffffffffffffffff",
		"HEAD", "refs/heads/main", ":", "default:", "a:b:c", "@~-1", "@~", "cp_", "\x00", "\xff"} {
		f.Add(s)
	}
	dir := f.TempDir()
	w, err := workspace.Open(testEnv(dir, nil), dir)
	if err != nil {
		f.Fatal(err)
	}
	chain := map[vcs.Hash]bool{}
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, "f"), []byte{byte('a' + i)}, 0o644)
		r, err := w.Checkpoint(workspace.CheckpointOptions{})
		if err != nil {
			f.Fatal(err)
		}
		chain[r.Commit] = true
	}
	f.Fuzz(func(t *testing.T, name string) {
		r, err := w.Resolve(name, spec.DefaultSession)
		if err != nil {
			code := spec.ExitCode(err)
			if (code != spec.ExitUsage && code != spec.ExitInvalid && code != spec.ExitNotFound) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Resolve(%q): %v (exit %d): want one line, exit 2, 3 or 4", name, err, code)
			}
			return
		}
		if r.Session != spec.DefaultSession || !chain[r.Commit] || r.Checkpoint == nil {
			t.Fatalf("Resolve(%q) = %s in session %q: not a checkpoint of the chain", name, r.Commit, r.Session)
		}
	})
}
