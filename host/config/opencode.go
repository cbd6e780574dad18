package hostconfig

import (
	_ "embed"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// opencode has no command hooks: it loads the JavaScript modules of a
// project's .opencode/plugins/ at startup (opencode.ai/docs/plugins), and
// each exported function returns the hooks it answers. ctxgit's is one
// file of its own there, opened by a marker line: only a file that carries
// it is rewritten or removed, so a plugin of that name that is not
// ctxgit's (one a repository committed, say) is left as it is.
const (
	opencodePluginFile = ".opencode/plugins/ctxgit.js"
	opencodeMarker     = "// ctxgit: opencode plugin written by `ctxgit init --host opencode`"
)

//go:embed opencode/ctxgit.js
var opencodeTemplate string

// opencodePlugin is the plugin file that runs command.
func opencodePlugin(command string) string {
	return strings.Replace(opencodeTemplate, "__CTXGIT_COMMAND__", quoteJSON(command), 1)
}

// opencodeHooks are the plugin hooks that run ctxgit, with the event each
// runs.
var opencodeHooks = []pluginEvent{
	{"experimental.chat.system.transform", "session-start"},
	{"experimental.session.compacting", "pre-compact"},
	{"tool.execute.after", "post-tool-use"},
}

func opencodeEntries(command string) []string {
	return pluginEntries(opencodeHooks, command, OpenCode)
}

// ownPlugin reports whether a plugin file's text is ctxgit's: its first
// line is the marker.
func ownPlugin(data []byte) bool {
	first, _, _ := strings.Cut(string(data), "\n")
	return strings.HasPrefix(strings.TrimSpace(first), opencodeMarker)
}

// pluginCommand reads the command an installed plugin runs, so a report
// names what was there; def when it cannot tell.
func pluginCommand(data []byte, def string) string {
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "const COMMAND = "); ok {
			var c string
			if json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(rest), ";")), &c) == nil && c != "" {
				return c
			}
		}
	}
	return def
}

// installOpenCode writes, rewrites or removes ctxgit's plugin file.
func installOpenCode(o Options) (*Result, error) {
	rel := opencodePluginFile
	abs, err := configPath(o, rel)
	if err != nil {
		return nil, err
	}
	res := &Result{Path: rel}
	old, perm, existed, err := readConfig(abs, rel)
	if err != nil {
		return nil, err
	}
	if existed && !ownPlugin(old) {
		return nil, spec.InvalidAt(rel, 1, "the file is not ctxgit's (its first line is not %q): left untouched; move it away to install ctxgit's opencode plugin", opencodeMarker+" …")
	}
	oldCommand := o.Command
	if existed {
		oldCommand = pluginCommand(old, o.Command)
	}
	if o.Uninstall {
		if !existed {
			return res, nil
		}
		if res.Backup, err = backup(o, rel, old, perm); err != nil {
			return nil, err
		}
		link := filepath.Join(o.Root, filepath.FromSlash(rel))
		if err := os.Remove(link); err != nil {
			return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
		}
		res.Changed = true
		res.Removed = opencodeEntries(oldCommand)
		// The folders go only when ctxgit's file was all they held, and
		// only real folders (a link stays).
		removeEmptyDir(filepath.Dir(link))
		removeEmptyDir(filepath.Dir(filepath.Dir(link)))
		return res, nil
	}
	want := opencodePlugin(o.Command)
	if existed && string(old) == want {
		return res, nil
	}
	if !existed {
		perm = 0o644
	}
	if err := prepareWrite(o, rel, abs, old, perm, existed, res); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(abs, []byte(want), perm); err != nil {
		return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
	}
	res.Changed = true
	var before []string
	if existed {
		before = opencodeEntries(oldCommand)
	}
	res.Added, res.Removed = diff(before, opencodeEntries(o.Command))
	res.Notes = append(res.Notes,
		"opencode loads it from .opencode/plugins/ at its next start; it runs ctxgit only from an absolute folder of PATH (or the path written in it), and does nothing where there is none")
	return res, nil
}

// removeEmptyDir removes dir when it is an empty directory, not a link.
func removeEmptyDir(dir string) {
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		os.Remove(dir)
	}
}

// inspectOpenCode reports ctxgit's plugin file, when the workspace holds
// one.
func inspectOpenCode(root string) (Installed, bool) {
	rel := opencodePluginFile
	in := Installed{Host: OpenCode, Path: rel}
	abs, err := workspace.ResolveFile(root, rel, "read")
	if err != nil {
		in.Err = err
		return in, true
	}
	data, _, existed, err := readConfig(abs, rel)
	if errors.Is(err, fs.ErrNotExist) || err == nil && (!existed || !ownPlugin(data)) {
		return in, false
	}
	if err != nil {
		in.Err = err
		return in, true
	}
	cmd := pluginCommand(data, DefaultCommand)
	in.Entries = opencodeEntries(cmd)
	// The plugin spawns the program with no shell: the command is the
	// program, spaces and all.
	in.Programs = []string{cmd}
	if string(data) != opencodePlugin(cmd) {
		in.Outdated = []string{"ctxgit.js"}
	}
	return in, true
}
