package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// SPEC §3.2: init lists .ctxgit/local/ in info/exclude before it creates
// the directory, so an init that cannot update info/exclude leaves no
// machine-local directory for `git status` to show.
func TestInitExcludesLocalBeforeCreatingIt(t *testing.T) {
	dir := realpath(t, t.TempDir())
	git(t, dir, "init", "-q")
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	os.RemoveAll(exclude)
	// A directory where the file should be: the update fails.
	if err := os.MkdirAll(exclude, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := openWS(t, dir).Init(); err == nil {
		t.Fatal("init succeeded with info/exclude a directory")
	}
	if _, err := os.Stat(filepath.Join(dir, ".ctxgit", "local")); !os.IsNotExist(err) {
		t.Fatalf(".ctxgit/local exists after a failed info/exclude update: %v", err)
	}
}

// SPEC §10.1, §12.1: a configured task state's JSON sibling is one of
// ctxgit's state files, left out of the recovery block's changed files.
func TestStateFilesTaskStateJSONSibling(t *testing.T) {
	w := openWS(t, t.TempDir())
	for path, want := range map[string]string{
		"state/task.yaml": "state/task.json",
		"state/task.yml":  "state/task.json",
		"state/task":      "state/task.json",
	} {
		w.Config.Paths.TaskState = path
		if !slices.Contains(w.StateFiles(), want) {
			t.Errorf("task_state %s: StateFiles() = %q, lacks %s", path, w.StateFiles(), want)
		}
	}
}
