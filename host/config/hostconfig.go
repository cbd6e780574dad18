// Package hostconfig installs ctxgit's hooks into an agent host's config
// in a workspace (`ctxgit init --host <name>`), merging with what the user
// has, and removes them again (docs/cli.md#init).
//
// JSON configs (Claude Code, Codex, Gemini CLI, Cursor, Qwen Code, GitHub
// Copilot CLI) are rewritten from
// an order-preserving tree: the user's keys, their order, their other
// hooks and their number text survive; ctxgit's entries are recognised by
// their command ("<Command> hook ..."), so installing twice changes
// nothing and uninstalling removes only them. OpenClaw gets a hook folder
// of its own instead, opencode a plugin file of its own.
package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// Host names an agent host ctxgit plugs into.
type Host string

// The hosts ctxgit knows (HOSTS.md).
const (
	ClaudeCode Host = "claude-code"
	Codex      Host = "codex"
	Gemini     Host = "gemini"
	Cursor     Host = "cursor"
	OpenClaw   Host = "openclaw"
	QwenCode   Host = "qwen-code"
	Copilot    Host = "copilot"
	OpenCode   Host = "opencode"
)

// Hosts lists the canonical host names in the order help text shows them.
var Hosts = []Host{ClaudeCode, Codex, Gemini, Cursor, OpenClaw, QwenCode, Copilot, OpenCode}

var aliases = map[string]Host{
	"claude":      ClaudeCode,
	"gemini-cli":  Gemini,
	"qwen":        QwenCode,
	"copilot-cli": Copilot,
}

// ParseHost turns a host name given on the command line into a Host. It
// takes the canonical names, "claude", "gemini-cli", "qwen" and
// "copilot-cli", in any case.
func ParseHost(s string) (Host, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, h := range Hosts {
		if name == string(h) {
			return h, nil
		}
	}
	if h, ok := aliases[name]; ok {
		return h, nil
	}
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = string(h)
	}
	return "", spec.Usage("unknown host %q: valid hosts are %s", s, strings.Join(names, ", "))
}

// Options says where and what to install.
type Options struct {
	Root      string // workspace root (absolute)
	Host      Host
	Local     bool // Claude Code: .claude/settings.local.json instead of settings.json
	Uninstall bool // remove only ctxgit's entries
	// Command is written verbatim before "hook HOST EVENT": the caller's
	// own command line. When it is empty, Program is rendered for the
	// host's shells on GOOS (ProgramCommand).
	Command string
	// Program is the ctxgit binary hooks run: a name found on PATH or a
	// path; default "ctxgit".
	Program string
	// ToolProgram is ctxgit-hook (cmd/ctxgit-hook) when it is installed
	// beside ctxgit: a name found on PATH or a path. The tool-call events
	// then run "<ToolProgram> HOST EVENT"; empty, they run ctxgit's hook
	// like the others.
	ToolProgram string
	GOOS        string           // the OS the hooks run on; default runtime.GOOS
	Now         func() time.Time // for backup names

	notes       []string // said about the options, added to the result
	toolCommand string   // ToolProgram rendered for the host's shells
}

// Result says what Install did.
type Result struct {
	Path    string // workspace-relative file or folder changed
	Changed bool
	Backup  string   // workspace-relative backup written before the change ("" if none)
	Added   []string // e.g. "SessionStart: ctxgit hook claude-code session-start"
	Removed []string
	Notes   []string // e.g. how to chain an existing statusLine
}

// DefaultCommand is how hooks run ctxgit unless told otherwise.
const DefaultCommand = "ctxgit"

// Install installs ctxgit's hooks for o.Host into the workspace at
// o.Root, or with o.Uninstall removes them. A file that cannot be read as
// the host's config is refused with its name and line and left untouched;
// an existing file is backed up before it is changed.
func Install(o Options) (*Result, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	res, err := installHost(o)
	if err == nil && !o.Uninstall {
		res.Notes = append(o.notes, res.Notes...)
	}
	return res, err
}

func installHost(o Options) (*Result, error) {
	switch o.Host {
	case ClaudeCode:
		file := ".claude/settings.json"
		other := ".claude/settings.local.json"
		if o.Local {
			file, other = other, file
		}
		res, err := installJSON(o, claudeHost, file)
		if err == nil && !o.Uninstall {
			res.Notes = append(res.Notes, alsoIn(o, claudeHost, other)...)
		}
		return res, err
	case Codex:
		return installJSON(o, codexHost, ".codex/hooks.json")
	case Gemini:
		return installJSON(o, geminiHost, ".gemini/settings.json")
	case Cursor:
		return installJSON(o, cursorHost, ".cursor/hooks.json")
	case QwenCode:
		return installJSON(o, qwenHost, ".qwen/settings.json")
	case Copilot:
		return installJSON(o, copilotHost, copilotHooksFile)
	case OpenCode:
		return installOpenCode(o)
	}
	return installOpenClaw(o)
}

func (o Options) normalize() (Options, error) {
	if o.Root == "" {
		return o, spec.Usage("no workspace root given")
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return o, err
	}
	o.Root = root
	h, err := ParseHost(string(o.Host))
	if err != nil {
		return o, err
	}
	o.Host = h
	if o.Local && h != ClaudeCode {
		return o, spec.Usage("--local applies to claude-code only (.claude/settings.local.json), not to %s", h)
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	o.Command = strings.TrimSpace(o.Command)
	if o.Command == "" && o.Program != "" {
		if err := spec.CheckArg("program", o.Program); err != nil {
			return o, err
		}
		cmd, err := ProgramCommand(o.Host, o.GOOS, o.Program)
		if err != nil {
			// A hook that runs the name works once ctxgit is on PATH; one
			// that runs a mangled path never does.
			o.notes = append(o.notes, fmt.Sprintf("hooks run `%s`, found on PATH: %v; put the folder of %s on PATH", DefaultCommand, err, o.Program))
			cmd = DefaultCommand
		} else if cmd != o.Program || !isBareName(o.Program) {
			o.notes = append(o.notes, fmt.Sprintf("hooks run %s by its path; if it moves, run `ctxgit init --host %s` again", o.Program, o.Host))
		}
		o.Command = cmd
	}
	if o.Command == "" {
		o.Command = DefaultCommand
	}
	if o.ToolProgram != "" && o.Host != OpenClaw && o.Host != OpenCode && spec.CheckArg("program", o.ToolProgram) == nil {
		// A path no host shell can run is no loss: ctxgit's hook answers
		// the tool calls as before.
		if cmd, err := ProgramCommand(o.Host, o.GOOS, o.ToolProgram); err == nil {
			o.toolCommand = cmd
		}
	}
	if err := spec.CheckArg("command", o.Command); err != nil {
		return o, err
	}
	if strings.ContainsAny(o.Command, "\r\n") {
		return o, spec.Usage("command must be one line: %q", o.Command)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

var bom = []byte("\xef\xbb\xbf")

// installJSON merges ctxgit's entries into (or out of) the JSON file rel.
func installJSON(o Options, h *jsonHost, rel string) (*Result, error) {
	res := &Result{Path: rel}
	abs, err := configPath(o, rel)
	if err != nil {
		return nil, err
	}
	data, perm, existed, err := readConfig(abs, rel)
	if err != nil {
		return nil, err
	}
	body := bytes.TrimPrefix(data, bom)
	doc, err := parse(body)
	if err != nil {
		return nil, invalidAt(rel, body, err)
	}
	before := doc.clone()
	notes, err := h.applyTool(doc, o.Command, o.toolCommand, rel, o.Uninstall)
	if err != nil {
		return nil, invalidAt(rel, body, err)
	}
	res.Notes = notes
	res.Added, res.Removed = diff(h.owned(o.Command, before), h.owned(o.Command, doc))
	var foreign []string // named whether or not ctxgit's were there already
	if !o.Uninstall {
		foreign = foreignNote(rel, "hook", string(h.host)+" runs as it runs ctxgit's", h.foreign(o.Command, doc))
	}
	if equal(before, doc) {
		res.Notes = append(res.Notes, foreign...)
		return res, nil
	}
	res.Changed = true
	remove := o.Uninstall && existed && h.trivial(doc)
	if err := prepareWrite(o, rel, abs, data, perm, existed, res); err != nil {
		return nil, err
	}
	if remove {
		if err := os.Remove(filepath.Join(o.Root, filepath.FromSlash(rel))); err != nil {
			return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
		}
		res.Notes = append(res.Notes, fmt.Sprintf("removed %s: nothing but ctxgit's hooks was in it", rel))
		return res, nil
	}
	if err := atomicfile.Write(abs, render(doc, data), perm); err != nil {
		return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
	}
	if !o.Uninstall {
		res.Notes = append(res.Notes, h.notes...)
		res.Notes = append(res.Notes, foreign...)
	}
	return res, nil
}

// render encodes doc in the layout of the file it replaces: a byte order
// mark, CRLF line ends and a missing final newline (JSON.stringify writes
// none) are kept, so that a file ctxgit only passed through comes back
// byte for byte.
func render(doc *value, old []byte) []byte {
	out := encode(doc)
	if len(bytes.TrimSpace(bytes.TrimPrefix(old, bom))) == 0 {
		return out
	}
	if bytes.Contains(old, []byte("\r\n")) {
		// Strings are escaped, so every newline in out is a line end.
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if !bytes.HasSuffix(old, []byte("\n")) {
		out = bytes.TrimRight(out, "\r\n")
	}
	if bytes.HasPrefix(old, bom) {
		out = append(append([]byte(nil), bom...), out...)
	}
	return out
}

// noteCommandRunes is how much of an entry's command a note shows.
const noteCommandRunes = 100

// foreignNote names what a config file ctxgit just wrote its own entry
// into runs besides it: hooks, MCP servers. A repository may commit the
// file with entries of its own, which the host runs by its own design
// once the person trusts the folder (Codex: each hook, by the hash of its
// definition); ctxgit's install, and its advice to trust ctxgit's, must
// not pass them on unseen (issue 32). what is the kind of entry, runs
// what the host does with them.
func foreignNote(rel, what, runs string, cmds []string) []string {
	if len(cmds) == 0 {
		return nil
	}
	const show = 3
	shown := make([]string, 0, show)
	for _, c := range cmds[:min(len(cmds), show)] {
		c = safetext.Line(c)
		if r := []rune(c); len(r) > noteCommandRunes {
			c = string(r[:noteCommandRunes]) + "…"
		}
		shown = append(shown, c)
	}
	more := ""
	if len(cmds) > show {
		more = fmt.Sprintf("; and %d more", len(cmds)-show)
	}
	return []string{fmt.Sprintf("%s also holds %s that ctxgit did not write, which %s: %s%s (check them before trusting this folder or them)",
		rel, spec.Plural(len(cmds), what), runs, strings.Join(shown, "; "), more)}
}

// configPath is where the host's config file rel of the workspace really
// is, by the file rule (workspace.ResolveFile): a settings file linked to
// another file of the workspace (one kept in a dotfiles directory there)
// stays a link and its target is rewritten; one a repository links out of
// the workspace, or into .git, is refused, not written (issue 32).
func configPath(o Options, rel string) (string, error) {
	return workspace.ResolveFile(o.Root, rel, "written")
}

// prepareWrite readies the write of the config file rel (at abs, where
// it leads): a backup of what it held, or the directories a new one
// needs, none of them a link.
func prepareWrite(o Options, rel, abs string, data []byte, perm fs.FileMode, existed bool, res *Result) error {
	if existed {
		var err error
		res.Backup, err = backup(o, rel, data, perm)
		return err
	}
	real, _ := filepath.Rel(o.Root, abs)
	if err := regfile.Dirs(o.Root, filepath.ToSlash(real), true); err != nil {
		return &spec.FileError{Path: filepath.ToSlash(filepath.Dir(rel)), Err: unwrapPath(err)}
	}
	return nil
}

// maxHostConfig bounds the read of a host's config file.
const maxHostConfig = 16 << 20

// readConfig reads a config file; a missing one reads as empty.
func readConfig(abs, rel string) (data []byte, perm fs.FileMode, existed bool, err error) {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, false, nil
	}
	if err != nil {
		return nil, 0, false, &spec.FileError{Path: rel, Err: unwrapPath(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, spec.InvalidAt(rel, 0, "not a regular file")
	}
	data, err = regfile.ReadFile(abs, maxHostConfig)
	if err != nil {
		return nil, 0, false, &spec.FileError{Path: rel, Err: unwrapPath(err)}
	}
	// The user's permissions stay: a private settings file stays private.
	return data, fi.Mode().Perm(), true, nil
}

// invalidAt turns a parse or shape error into "file:line: column C: ...".
func invalidAt(rel string, body []byte, err error) error {
	var se *syntaxError
	if !errors.As(err, &se) {
		return &spec.FileError{Path: rel, Err: err}
	}
	off := se.off
	if off < 0 {
		off = 0
	}
	line, col := lineCol(body, off)
	return spec.InvalidAt(rel, line, "column %d: %s", col, se.msg)
}

// backupStamp is the UTC time in a backup's name: settings.json.bak-20261122T100000Z.
const backupStamp = "20060102T150405Z"

// BackupDir holds the backups init --host writes, machine-local, where
// git does not see them (under .ctxgit/local/, which ctxgit's own
// .gitignore and info/exclude keep out of `git status`).
const BackupDir = spec.LocalDir + "/backups"

// backup writes data to "<BackupDir>/<file>.bak-<UTC stamp>", never over
// an existing backup (a second one in the same second gets "-2"). It
// returns the backup's workspace-relative path.
func backup(o Options, rel string, data []byte, perm fs.FileMode) (string, error) {
	stamp := o.Now().UTC().Format(backupStamp)
	base := filepath.Join(o.Root, filepath.FromSlash(BackupDir), filepath.FromSlash(rel))
	if err := workspace.MakeLocalDirs(o.Root, base); err != nil {
		return "", &spec.FileError{Path: BackupDir, Err: unwrapPath(err)}
	}
	path, err := atomicfile.WriteNew(atomicfile.NumberedName(base+".bak-"+stamp), data, perm)
	if err != nil {
		return "", &spec.FileError{Path: BackupDir + "/" + rel, Err: unwrapPath(err)}
	}
	return BackupDir + "/" + rel + strings.TrimPrefix(path, base), nil
}

// alsoIn warns when the other Claude Code settings file of the workspace
// holds ctxgit's hooks too: both files' hooks run, so every event would
// run ctxgit twice.
func alsoIn(o Options, h *jsonHost, rel string) []string {
	abs, err := configPath(o, rel)
	if err != nil {
		return nil
	}
	data, err := regfile.ReadFile(abs, maxHostConfig)
	if err != nil {
		return nil
	}
	doc, err := parse(bytes.TrimPrefix(data, bom))
	if err != nil || doc.kind != kObject {
		return nil
	}
	n := 0
	for _, s := range h.owned(o.Command, doc) {
		if !strings.HasPrefix(s, "statusLine: ") {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	flag := ""
	if rel == ".claude/settings.local.json" {
		flag = " --local"
	}
	return []string{fmt.Sprintf("%s also holds %s: Claude Code runs both files' hooks, so each would run twice; remove one set with `ctxgit init --host claude-code%s --uninstall`", rel, spec.Plural(n, "ctxgit hook"), flag)}
}

// unwrapPath drops the absolute path an *fs.PathError carries: the
// FileError around it names the file workspace-relative.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
