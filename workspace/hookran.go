package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/spec"
)

// hookRanDir holds one empty file per host event whose hook has run in
// the workspace ("HOST.EVENT"), so that doctor can tell installed hooks
// that never ran (a host that does not load them, or Codex awaiting
// trust) from working ones.
const hookRanDir = hookpath.HookRanDir

// MarkHookRan records, best effort, that host's hook for event ran in the
// workspace at root. Once recorded it costs one stat: it runs on every
// hook call. Whatever is at the marker's place, a link included, counts
// and is left alone: nothing is created through it (issue 32: a committed
// dangling link there made a hook create its target).
func MarkHookRan(root, host, event string) {
	path := hookpath.HookRanPath(root, host, event)
	if _, err := os.Lstat(path); err == nil {
		return
	}
	if _, err := os.Stat(filepath.Join(root, spec.DirName)); err != nil {
		return // not a ctxgit workspace: a hook creates no .ctxgit/
	}
	CreateLocal(root, path)
}

// HooksRan lists the events of host whose hooks have run in the workspace
// at root, in directory order.
func HooksRan(root, host string) []string {
	entries, err := ReadLocalDir(root, filepath.Join(root, filepath.FromSlash(spec.LocalDir), hookRanDir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if event, ok := strings.CutPrefix(e.Name(), host+"."); ok && event != "" {
			out = append(out, event)
		}
	}
	return out
}
