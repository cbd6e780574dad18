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
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/spec"
)

// OpenClaw discovers managed hooks in <stateDir>/hooks/<name>/, normally
// ~/.openclaw/hooks/ (its docs, automation/hooks/configuration.md, "Hook
// discovery"), one folder per hook holding HOOK.md and handler.ts. The
// folder is the user's, not a repository's: one handler serves every
// workspace OpenClaw's agents work in, and finds the repository from the
// event. Earlier versions wrote <repo>/hooks/ctxgit/, which OpenClaw only
// discovers when the repository is the agent's workspace; init removes it.
const (
	openclawName = "ctxgit"
	// openclawOldDir is where earlier versions installed, in the repository.
	openclawOldDir = "hooks/ctxgit"
	// openclawMarker opens the line in HOOK.md that says the folder is
	// ctxgit's: only such a folder is rewritten or removed.
	openclawMarker = "<!-- ctxgit: managed hook folder"
)

// getenv reads the environment OpenClaw's state directory comes from.
var getenv = os.Getenv

// OpenClawStateDir is OpenClaw's state directory as OpenClaw resolves it
// (resolveStateDir in its src/config/paths.ts): OPENCLAW_STATE_DIR, else
// .openclaw in OPENCLAW_HOME or the user's home; "" when there is no home.
func OpenClawStateDir() string {
	home, _ := os.UserHomeDir()
	expand := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
			return filepath.Join(home, p[1:])
		}
		return p
	}
	if d := strings.TrimSpace(getenv("OPENCLAW_STATE_DIR")); d != "" {
		abs, _ := filepath.Abs(expand(d))
		return abs
	}
	if h := strings.TrimSpace(getenv("OPENCLAW_HOME")); h != "" {
		home, _ = filepath.Abs(expand(h))
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".openclaw")
}

// openclawDir is the managed hook folder ctxgit installs: absolute, and
// how to name it to a person (~ for the home directory).
func openclawDir() (abs, shown string, err error) {
	state := OpenClawStateDir()
	if state == "" {
		return "", "", spec.Usage("no home directory: cannot tell where OpenClaw's managed hooks live (set HOME or OPENCLAW_STATE_DIR)")
	}
	abs = filepath.Join(state, "hooks", openclawName)
	shown = abs
	if home, herr := os.UserHomeDir(); herr == nil && home != "" {
		if rel, rerr := filepath.Rel(home, abs); rerr == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			shown = "~/" + filepath.ToSlash(rel)
		}
	}
	return abs, shown, nil
}

// pluginEvent is a host event a file ctxgit writes (OpenClaw's handler,
// opencode's plugin) answers by running `ctxgit hook HOST arg`.
type pluginEvent struct{ event, arg string }

var openclawEvents = []pluginEvent{
	{"agent:bootstrap", "bootstrap"},
	{"session:compact:before", "compact-before"},
	{"session:compact:after", "compact-after"},
}

//go:embed openclaw/handler.ts
var handlerTemplate string

// openclawFiles returns the folder's files, name → content.
func openclawFiles(command string) []struct{ name, content string } {
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
	fmt.Fprintf(&md, "- `agent:bootstrap`: runs `%s hook openclaw bootstrap` in the agent's workspace and adds what it prints to the run's bootstrap files as `CONTEXT_RECOVERY.md`; when the event has no bootstrap file list, `%s hook openclaw bootstrap --write` writes `CONTEXT_RECOVERY.md` into the workspace instead.\n", command, command)
	fmt.Fprintf(&md, "- `session:compact:before`: `%s hook openclaw compact-before` (checkpoint), with the session's transcript read from OpenClaw's agent database.\n", command)
	fmt.Fprintf(&md, "- `session:compact:after`: `%s hook openclaw compact-after`.\n\n", command)
	md.WriteString("One folder serves every workspace: ctxgit acts only where the agent's workspace is a ctxgit workspace (`ctxgit init`), found from the event, and for the compaction events from the session's last bootstrap. The event goes to ctxgit as JSON on stdin, with a 30-second timeout. Whatever happens, the handler returns quietly and the agent goes on.\n\n")
	md.WriteString("OpenClaw loads directory hooks once enabled: run `openclaw hooks enable ctxgit`.\n")

	handler := strings.Replace(handlerTemplate, "__CTXGIT_COMMAND__", quoteJSON(command), 1)
	return []struct{ name, content string }{
		{"HOOK.md", md.String()},
		{"handler.ts", handler},
	}
}

func openclawEntries(command string) []string {
	return pluginEntries(openclawEvents, command, OpenClaw)
}

// pluginEntries are the entries a report names for the events a file of
// ctxgit's answers: "EVENT: COMMAND hook HOST ARG".
func pluginEntries(events []pluginEvent, command string, host Host) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.event + ": " + command + " hook " + string(host) + " " + e.arg
	}
	return out
}

// maxHookFile bounds the read of a file in a hook folder: ctxgit's own
// are a few KiB.
const maxHookFile = 1 << 20

// readHookFile reads a file of a hook folder as a regular file, not
// through a link, bounded: the folder an earlier version left in the
// repository is the repository's, and a HOOK.md linked to /dev/zero
// there made doctor read without end (issue 32).
func readHookFile(dir, name string) ([]byte, error) {
	return regfile.ReadFile(filepath.Join(dir, name), maxHookFile)
}

// oldOpenClawDir is the folder an earlier version installed into the
// repository, when it is reached through no link (SPEC §3.4): a
// repository that commits hooks -> elsewhere must not have init remove,
// or doctor read, another folder's files.
func oldOpenClawDir(root string) (string, bool) {
	if regfile.Dirs(root, openclawOldDir+"/HOOK.md", false) != nil {
		return "", false
	}
	return filepath.Join(root, filepath.FromSlash(openclawOldDir)), true
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

// checkFolder looks at a hook folder (named shown to a person): whether it
// exists, and if it does, refuses it unless it is ctxgit's.
func checkFolder(dir, shown string) (exists bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, &spec.FileError{Path: shown, Err: unwrapPath(err)}
	}
	if !fi.IsDir() {
		return false, spec.InvalidAt(shown, 0, "exists and is not a folder; move it away to install ctxgit's OpenClaw hook")
	}
	md, err := readHookFile(dir, "HOOK.md")
	if errors.Is(err, fs.ErrNotExist) {
		if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) == 0 {
			return false, nil // an empty folder holds nothing to lose
		}
	} else if err != nil {
		return false, &spec.FileError{Path: shown + "/HOOK.md", Err: unwrapPath(err)}
	}
	if !ownFolder(md) {
		return false, spec.InvalidAt(shown+"/HOOK.md", 0,
			"the folder is not ctxgit's (no %q line): left untouched; move it away to install ctxgit's OpenClaw hook", openclawMarker+" …")
	}
	return true, nil
}

// installOpenClaw writes, rewrites or removes ctxgit's managed hook folder,
// and removes the folder earlier versions wrote into the repository.
func installOpenClaw(o Options) (*Result, error) {
	dir, shown, err := openclawDir()
	if err != nil {
		return nil, err
	}
	res := &Result{Path: shown}
	exists, err := checkFolder(dir, shown)
	if err != nil {
		return nil, err
	}
	oldCommand := installedCommand(dir, o.Command)
	if err := removeOldOpenClaw(o, res); err != nil {
		return nil, err
	}
	if o.Uninstall {
		if !exists {
			return res, nil
		}
		return res, removeOpenClaw(oldCommand, dir, shown, res, false)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &spec.FileError{Path: shown, Err: unwrapPath(err)}
	}
	for _, f := range openclawFiles(o.Command) {
		rel := shown + "/" + f.name
		abs := filepath.Join(dir, f.name)
		old, perm, existed, err := readConfig(abs, rel)
		if err != nil {
			return nil, err
		}
		if existed && string(old) == f.content {
			continue
		}
		if existed {
			b, err := backup(o, "openclaw-hooks/"+openclawName+"/"+f.name, old, perm)
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
			"OpenClaw loads it once enabled: run `openclaw hooks enable ctxgit` (a running gateway picks it up on its next start)",
			"it serves every ctxgit workspace an OpenClaw agent works in; `ctxgit init --host openclaw --uninstall` removes it for all of them")
	}
	return res, nil
}

// removeOldOpenClaw removes the hook folder an earlier version wrote into
// the repository (<repo>/hooks/ctxgit/), when it is ctxgit's.
func removeOldOpenClaw(o Options, res *Result) error {
	dir, ok := oldOpenClawDir(o.Root)
	if !ok {
		return nil
	}
	exists, err := checkFolder(dir, openclawOldDir)
	if err != nil || !exists {
		// Someone else's folder of that name is not ctxgit's to touch.
		return nil
	}
	old := &Result{}
	if err := removeOpenClaw(installedCommand(dir, o.Command), dir, openclawOldDir, old, true); err != nil {
		return err
	}
	res.Changed = true
	res.Notes = append(res.Notes, "removed "+openclawOldDir+"/, where an earlier version installed the hook")
	res.Notes = append(res.Notes, old.Notes...)
	return nil
}

// removeOpenClaw removes ctxgit's files from the folder, then the folder
// (and with dropParent an emptied parent); anything else the user put
// there stays.
func removeOpenClaw(command, dir, shown string, res *Result, dropParent bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &spec.FileError{Path: shown, Err: unwrapPath(err)}
	}
	for _, e := range entries {
		name := e.Name()
		ours := name == "HOOK.md" || name == "handler.ts" ||
			((strings.HasPrefix(name, "HOOK.md.bak-") || strings.HasPrefix(name, "handler.ts.bak-")) && e.Type().IsRegular())
		if !ours {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return &spec.FileError{Path: shown + "/" + name, Err: unwrapPath(err)}
		}
		res.Changed = true
	}
	res.Removed = openclawEntries(command)
	if err := os.Remove(dir); err != nil {
		res.Notes = append(res.Notes, "left "+shown+"/ in place: it holds files that are not ctxgit's")
		return nil
	}
	if dropParent {
		// The repository's hooks/ goes only if ctxgit's folder was all it
		// held; OpenClaw's own hooks/ stays.
		os.Remove(filepath.Dir(dir))
	}
	return nil
}

// installedCommand reads the command an installed handler.ts runs, so a
// report names what was there; def when it cannot tell.
func installedCommand(dir, def string) string {
	data, err := readHookFile(dir, "handler.ts")
	if err != nil {
		return def
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "const COMMAND: string = "); ok {
			var c string
			if json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(rest), ";")), &c) == nil && c != "" {
				return c
			}
		}
	}
	return def
}
