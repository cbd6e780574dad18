package hostconfig

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
)

// OpenClaw discovers workspace hooks in <workspace>/hooks/<name>/ (its
// hooks documentation, "Hook Discovery"), one folder per hook holding
// HOOK.md and handler.ts. The folder goes into the repository ctxgit keeps
// (which may differ from the agent's workspace, agents.defaults.cwd), named
// after the hook; its handler runs ctxgit there.
const (
	openclawDir = "hooks/ctxgit"
	// openclawMarker opens the line in HOOK.md that says the folder is
	// ctxgit's: only such a folder is rewritten or removed.
	openclawMarker = "<!-- ctxgit: managed hook folder"
)

var openclawEvents = []struct{ event, arg string }{
	{"agent:bootstrap", "bootstrap"},
	{"session:compact:before", "compact-before"},
	{"session:compact:after", "compact-after"},
}

//go:embed openclaw/handler.ts
var handlerTemplate string

// openclawFiles returns the folder's files, name → content.
func openclawFiles(command, root string) []struct{ name, content string } {
	events := make([]string, len(openclawEvents))
	for i, e := range openclawEvents {
		events[i] = quoteJSON(e.event)
	}
	meta := `{"openclaw": {"emoji": "🧭", "events": [` + strings.Join(events, ", ") + `]`
	// A bare program name can be checked on PATH by `openclaw hooks check`;
	// a path or a command line cannot.
	if !strings.ContainsAny(command, " \t/\\$\"'") {
		meta += `, "requires": {"bins": [` + quoteJSON(command) + `]}`
	}
	meta += `}}`

	var md strings.Builder
	md.WriteString("---\n")
	md.WriteString("name: ctxgit\n")
	md.WriteString(`description: "Keeps the agent's work resumable across compaction: a ctxgit checkpoint before compaction, the recovery block at bootstrap."` + "\n")
	md.WriteString("metadata: " + meta + "\n")
	md.WriteString("---\n\n")
	md.WriteString("# ctxgit\n\n")
	md.WriteString(openclawMarker + "; `ctxgit init --host openclaw --uninstall` removes it -->\n\n")
	md.WriteString("Written by `ctxgit init --host openclaw`, which rewrites this folder.\n\n")
	fmt.Fprintf(&md, "- `agent:bootstrap`: runs `%s hook openclaw bootstrap` and adds what it prints to the bootstrap files as `CONTEXT_RECOVERY.md`; when the event has no bootstrap file list, `%s hook openclaw bootstrap --write` writes `CONTEXT_RECOVERY.md` into the workspace instead.\n", command, command)
	fmt.Fprintf(&md, "- `session:compact:before`: `%s hook openclaw compact-before` (checkpoint).\n", command)
	fmt.Fprintf(&md, "- `session:compact:after`: `%s hook openclaw compact-after`.\n\n", command)
	md.WriteString("The handler only runs ctxgit, in the repository this folder was installed into (or `CTXGIT_ROOT`), never in the agent's workspace unless that is the repository, with the event as JSON on stdin and a 30-second timeout. Whatever happens, it returns quietly and the agent goes on.\n\n")
	md.WriteString("Workspace hooks start disabled: enable this one with `openclaw hooks enable ctxgit`.\n")

	handler := strings.Replace(handlerTemplate, "__CTXGIT_COMMAND__", quoteJSON(command), 1)
	handler = strings.Replace(handler, "__CTXGIT_ROOT__", quoteJSON(root), 1)
	return []struct{ name, content string }{
		{"HOOK.md", md.String()},
		{"handler.ts", handler},
	}
}

func openclawEntries(command string) []string {
	out := make([]string, len(openclawEvents))
	for i, e := range openclawEvents {
		out[i] = e.event + ": " + command + " hook openclaw " + e.arg
	}
	return out
}

// ownFolder reports whether the HOOK.md text carries ctxgit's marker line.
func ownFolder(hookMD []byte) bool {
	for _, line := range bytes.Split(hookMD, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(openclawMarker)) {
			return true
		}
	}
	return false
}

// checkFolder looks at <root>/hooks/ctxgit: whether it exists, and if it
// does, refuses it unless it is ctxgit's.
func checkFolder(dir string) (exists bool, oldHookMD []byte, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, &spec.FileError{Path: openclawDir, Err: unwrapPath(err)}
	}
	if !fi.IsDir() {
		return false, nil, spec.InvalidAt(openclawDir, 0, "exists and is not a folder; move it away to install ctxgit's OpenClaw hook")
	}
	md, err := os.ReadFile(filepath.Join(dir, "HOOK.md"))
	if errors.Is(err, fs.ErrNotExist) {
		if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) == 0 {
			return false, nil, nil // an empty folder holds nothing to lose
		}
	} else if err != nil {
		return false, nil, &spec.FileError{Path: openclawDir + "/HOOK.md", Err: unwrapPath(err)}
	}
	if !ownFolder(md) {
		return false, nil, spec.InvalidAt(openclawDir+"/HOOK.md", 0,
			"the folder is not ctxgit's (no %q line): left untouched; move it away to install ctxgit's OpenClaw hook", openclawMarker+" …")
	}
	return true, md, nil
}

// installOpenClaw writes, rewrites or removes ctxgit's hook folder.
func installOpenClaw(o Options) (*Result, error) {
	res := &Result{Path: openclawDir}
	dir := filepath.Join(o.Root, filepath.FromSlash(openclawDir))
	exists, _, err := checkFolder(dir)
	if err != nil {
		return nil, err
	}
	oldCommand := installedCommand(dir, o.Command)
	if o.Uninstall {
		if !exists {
			return res, nil
		}
		return res, removeOpenClaw(oldCommand, dir, res)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &spec.FileError{Path: openclawDir, Err: unwrapPath(err)}
	}
	for _, f := range openclawFiles(o.Command, o.Root) {
		rel := openclawDir + "/" + f.name
		abs := filepath.Join(dir, f.name)
		old, perm, existed, err := readConfig(abs, rel)
		if err != nil {
			return nil, err
		}
		if existed && string(old) == f.content {
			continue
		}
		if existed {
			b, err := backup(o, rel, old, perm)
			if err != nil {
				return nil, err
			}
			if res.Backup == "" {
				res.Backup = b
			} else {
				res.Notes = append(res.Notes, "also backed up "+rel+" as "+b)
			}
		} else {
			perm = 0o644
		}
		if err := atomicfile.Write(abs, []byte(f.content), perm); err != nil {
			return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
		}
		res.Changed = true
	}
	if res.Changed {
		var before []string
		if exists {
			before = openclawEntries(oldCommand)
		}
		res.Added, res.Removed = diff(before, openclawEntries(o.Command))
		res.Notes = append(res.Notes,
			"OpenClaw keeps workspace hooks disabled until enabled: run `openclaw hooks enable ctxgit`, then restart the gateway",
			"OpenClaw finds it in <workspace>/hooks/: if OpenClaw's agent workspace is not "+o.Root+", add "+filepath.Join(o.Root, "hooks")+" to hooks.internal.load.extraDirs in OpenClaw's config")
	}
	return res, nil
}

// removeOpenClaw removes ctxgit's files from the folder, then the folder
// and an emptied hooks/ folder; anything else the user put there stays.
func removeOpenClaw(command, dir string, res *Result) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &spec.FileError{Path: openclawDir, Err: unwrapPath(err)}
	}
	for _, e := range entries {
		name := e.Name()
		ours := name == "HOOK.md" || name == "handler.ts" ||
			((strings.HasPrefix(name, "HOOK.md.bak-") || strings.HasPrefix(name, "handler.ts.bak-")) && e.Type().IsRegular())
		if !ours {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return &spec.FileError{Path: openclawDir + "/" + name, Err: unwrapPath(err)}
		}
		res.Changed = true
	}
	res.Removed = openclawEntries(command)
	if err := os.Remove(dir); err != nil {
		res.Notes = append(res.Notes, "left "+openclawDir+"/ in place: it holds files that are not ctxgit's")
		return nil
	}
	// hooks/ goes only if ctxgit's folder was all it held.
	os.Remove(filepath.Dir(dir))
	return nil
}

// installedCommand reads the command an installed handler.ts runs, so a
// report names what was there; def when it cannot tell.
func installedCommand(dir, def string) string {
	return installedConst(dir, "const COMMAND: string = ", def)
}

// installedRoot reads the repository an installed handler.ts was written
// for (the path as init saw it, symlinks and all); def when it cannot tell.
func installedRoot(dir, def string) string {
	return installedConst(dir, "const INSTALL_ROOT: string = ", def)
}

// installedConst reads a JSON string constant of an installed handler.ts.
func installedConst(dir, prefix, def string) string {
	data, err := os.ReadFile(filepath.Join(dir, "handler.ts"))
	if err != nil {
		return def
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			var c string
			if json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(rest), ";")), &c) == nil && c != "" {
				return c
			}
		}
	}
	return def
}
