package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cli            *cli.App
	// ws is the workspace a command opened, so messages can name files
	// relative to it.
	ws *workspace.Workspace
	// out is stdout, remembering the first write error.
	out *outputWriter
	// stdoutFile is stdout when it is a file (a terminal, maybe);
	// outOpts, tty, color and pager are how output for people looks
	// (output.go).
	stdoutFile *os.File
	outOpts    outputOpts
	tty, color bool
	pager      *pager
	// toldConfig: the command printed the config's notice (SPEC §11.1).
	toldConfig bool
}

// outputWriter remembers the first error writing the command's output (a
// full disk, a closed pipe), so a command whose output was lost does not
// exit 0.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	out := &outputWriter{w: stdout}
	a := &app{stdin: stdin, stdout: out, stderr: stderr, out: out}
	a.stdoutFile, _ = stdout.(*os.File)
	a.cli = &cli.App{
		Name:    "ctxgit",
		Usage:   "keep an agent's working state resumable across context compaction",
		Version: buildInfo().String(),
		// cli.HelpFlag is added here because the app has its own help
		// command (groups.go), which makes urfave/cli leave it out.
		Flags: append(globalFlags(), cli.HelpFlag),
		// Candidates for the completion scripts (ctxgit completion SHELL).
		EnableBashCompletion: true,
		Writer:               stdout,
		ErrWriter:            stderr,
		// Errors are printed once, by run, with their exit code.
		ExitErrHandler: func(*cli.Context, error) {},
		// ctxgit alone shows where the work stands; help stays at
		// ctxgit help and -h.
		Action: a.whereAction,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return spec.Usage("%v", err)
		},
		Commands: []*cli.Command{
			a.initCommand(),
			a.checkpointCommand(),
			a.recoverCommand(),
			a.logCommand(),
			a.showCommand(),
			a.diffCommand(),
			a.reportCommand(),
			a.whyCommand(),
			a.planCommand(),
			a.decideCommand(),
			a.failCommand(),
			a.ensureCommand(),
			a.statusCommand(),
			a.resumeCommand(),
			a.restoreCommand(),
			a.summaryCommand(),
			a.bundleCommand(),
			a.stateCommand(),
			a.gaugeCommand(),
			a.hookCommand(),
			a.statuslineCommand(),
			a.transcriptCommand(),
			a.pruneCommand(),
			a.doctorCommand(),
			a.pushCommand(),
			a.fetchCommand(),
			a.gitCommand(),
			a.demoCommand(),
			a.gitHookCommand(),
			a.mcpCommand(),
			a.versionCommand(),
			a.completionCommand(),
			a.manCommand(),
			helpCommand(),
			a.completeCommand(),
		},
	}
	groupCommands(a.cli.Commands)
	a.addQuiet(a.cli.Commands)
	describe(a.cli.Commands)
	setUsageText(a.cli.Commands, a.cli.Name)
	for _, c := range a.cli.Commands {
		setUsageError(c)
		if c.Name == "hook" || c.Name == "statusline" {
			// A host must never see exit 2 (it blocks), not even for a
			// flag a newer config passes to an older binary.
			c.OnUsageError = func(*cli.Context, error, bool) error { return nil }
		}
	}
	return a
}

// setUsageError makes a bad flag one "ctxgit: …" line with the usage exit
// code, instead of urfave/cli's help dump.
func setUsageError(c *cli.Command, parents ...string) {
	path := append(append([]string{}, parents...), c.Name)
	c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return flagUsageError(c, path, err)
	}
	for _, sub := range c.Subcommands {
		setUsageError(sub, path...)
	}
}

// flagUsageError rewrites the flag package's "flag provided but not
// defined: -sesions" as a person reads it: the flag as typed, with both
// dashes, the nearest flag the command has, and where its flags are
// listed.
func flagUsageError(c *cli.Command, path []string, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return spec.Usage("%v", err)
	}
	name = strings.TrimLeft(name, "-")
	dashes := func(n string) string {
		if len(n) == 1 {
			return "-" + n
		}
		return "--" + n
	}
	see := "ctxgit " + strings.Join(path, " ") + " --help"
	if s := nearestFlag(c.Flags, name); s != "" {
		return spec.Usage("unknown flag %s: did you mean %s? (see %s)", dashes(name), dashes(s), see)
	}
	return spec.Usage("unknown flag %s (see %s)", dashes(name), see)
}

// nearestFlag is the name of the command's flag closest to name, by the
// rule nearestCommand applies to commands; "" when none is that near.
func nearestFlag(flags []cli.Flag, name string) string {
	if len(name) < 2 {
		return "" // every one-letter flag is one edit from every other
	}
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	return nearestName(names, name)
}

func (a *app) run(args []string) int {
	args, opts, err := takeOutputFlags(args)
	if err != nil {
		fmt.Fprintf(a.stderr, "ctxgit: %s\n", oneLine(err.Error()))
		return exitCode(err)
	}
	a.outOpts = opts
	args = hoistGlobalFlags(a.cli.Commands, args)
	ctx, stop := a.interruptContext(args)
	defer stop()
	switch {
	case len(args) > 1 && args[len(args)-1] == "--generate-bash-completion":
		// Completion candidates, urfave/cli's own protocol. A "--" typed
		// as the word to complete would end the flags and make the request
		// a positional argument (a decision recorded as
		// "--generate-bash-completion"): ask for the flags instead.
		if n := len(args); n > 2 && args[n-2] == "--" {
			args = append(args[:n-2:n-2], "-", args[n-1])
		}
		err = a.cli.RunContext(ctx, args)
	case len(args) > 1 && !strings.HasPrefix(args[1], "-") && a.cli.Command(args[1]) == nil && args[1] != "help" && args[1] != "h":
		err = unknownCommand(a.cli.Commands, args[1])
	case len(args) > 2 && a.cli.Command(args[1]) != nil && len(a.cli.Command(args[1]).Subcommands) > 0 &&
		!strings.HasPrefix(args[2], "-") && findCommand(a.cli.Command(args[1]).Subcommands, args[2]) == nil:
		// "plan mrak 1 done": a parent with subcommands takes no
		// arguments of its own, so an unknown word is a mistyped
		// subcommand.
		err = unknownCommand(a.cli.Command(args[1]).Subcommands, args[2], args[1])
	case len(args) > 2 && (args[1] == "help" || args[1] == "h") && a.cli.Command(args[2]) == nil:
		err = unknownCommand(a.cli.Commands, args[2])
	case len(args) > 3 && (args[1] == "help" || args[1] == "h") && len(a.cli.Command(args[2]).Subcommands) > 0 && !strings.HasPrefix(args[3], "-"):
		// "help plan mark": urfave/cli's help command shows the parent's
		// help for it, so ask the subcommand itself.
		cmd := a.cli.Command(args[2])
		if findCommand(cmd.Subcommands, args[3]) == nil {
			err = unknownCommand(cmd.Subcommands, args[3], args[2])
			break
		}
		err = a.cli.RunContext(ctx, []string{args[0], args[2], args[3], "--help"})
	default:
		err = a.cli.RunContext(ctx, permute(a.cli.Commands, args))
	}
	a.endPager()
	a.reportBadSessions()
	if a.toldConfig {
		a.ws.MarkConfigTold()
	}
	if err != nil && ctx.Err() != nil {
		// Whatever the interrupted step said (a context error, a git
		// killed mid-transfer), the user pressed Ctrl-C: one line, 130.
		fmt.Fprintln(a.stderr, "ctxgit: interrupted")
		return spec.ExitInterrupted
	}
	if err == nil && a.out.err != nil {
		err = fmt.Errorf("writing output: %w", a.out.err)
	}
	if err == nil {
		return spec.ExitOK
	}
	if !errors.As(err, new(exitError)) {
		fmt.Fprintf(a.stderr, "ctxgit: %s\n", a.rel(oneLine(err.Error())))
	}
	return exitCode(err)
}

// interruptContext is the context a command's long work runs under: it is
// cancelled on the first SIGINT or SIGTERM, so a snapshot, prune, restore
// or transfer stops before publishing anything, cleans up and exits 130.
// After that first signal the default handling is back, so a second Ctrl-C
// kills at once. Hook commands get no handler: they fail open on their
// own terms (docs/cli.md#hook), and a host stopping one must not be ignored.
func (a *app) interruptContext(args []string) (context.Context, context.CancelFunc) {
	if len(args) > 1 && (args[1] == "hook" || args[1] == "statusline") {
		return context.WithCancel(context.Background())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// reportBadSessions warns of each session ref the command's listings
// skipped because its head does not read as a commit (SPEC §7.5).
func (a *app) reportBadSessions() {
	if a.ws == nil {
		return
	}
	for _, b := range a.ws.BadSessions() {
		a.warn("%s", b.String())
	}
}

func (a *app) rel(msg string) string {
	if a.ws == nil {
		return msg
	}
	return a.ws.Rel(msg)
}

// exitError ends a command with a code and no further message, for
// commands that already said what they had to.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// oneLine keeps every error to the one line the spec promises, with any
// control character from a file name neutralised (SPEC §10.1).
func oneLine(s string) string { return safetext.Line(s) }

// Common flags.
var (
	rootFlag = &cli.StringFlag{Name: "root", Usage: "workspace root (default: CTXGIT_ROOT, the nearest directory with .ctxgit/, the git top level, or, for init and ensure, the current directory)"}
	jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print JSON"}
)

// sessionFallback is the session a command works on when neither
// --session nor CTXGIT_SESSION names one (SPEC §6.3; docs/cli.md#log has
// the details).
const sessionFallback = "the running host session hooks recorded (until it ends, at most 12 hours), else default"

func sessionFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "session", Aliases: []string{"s"}, EnvVars: []string{"CTXGIT_SESSION"}, Value: spec.DefaultSession, DefaultText: sessionFallback, Usage: "session key"}
}

// open finds and opens the workspace for a command.
func (a *app) open(c *cli.Context) (*workspace.Workspace, error) {
	return a.openFound(c, workspace.FindRoot)
}

// openToCreate is open for the commands that make a workspace where there
// is none: init and ensure (SPEC §2 rule 4).
func (a *app) openToCreate(c *cli.Context) (*workspace.Workspace, error) {
	return a.openFound(c, workspace.FindRootToCreate)
}

func (a *app) openFound(c *cli.Context, find func(workspace.Env, string) (string, error)) (*workspace.Workspace, error) {
	env, err := workspace.DefaultEnv()
	if err != nil {
		return nil, err
	}
	root, err := find(env, c.String("root"))
	if err != nil {
		return nil, err
	}
	w, err := workspace.Open(env, root)
	a.ws = w
	if err == nil {
		// Settings the config asks for and ctxgit did not apply, once
		// per clone (SPEC §11.1), marked told when the command is done
		// (it may be the one that makes .ctxgit/local/); a --json run
		// tells without marking, since a program reading it may drop
		// stderr.
		// A notice, not an error: "note:" lines, as the first push's.
		notice := w.ConfigNotice()
		for _, line := range notice {
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			fmt.Fprintf(a.stderr, "note: %s%s\n", indent, oneLine(line))
		}
		a.toldConfig = len(notice) > 0 && !c.Bool("json")
	}
	return w, err
}

// sessionWorkspace is open for commands that take --session: it checks
// the session key, then applies SPEC §6.3 to it.
func (a *app) sessionWorkspace(c *cli.Context) (*workspace.Workspace, string, error) {
	return a.sessionWorkspaceWith(c, a.open)
}

// sessionWorkspaceWith is sessionWorkspace with the given opener
// (openToCreate for the commands that may make the workspace).
func (a *app) sessionWorkspaceWith(c *cli.Context, open func(*cli.Context) (*workspace.Workspace, error)) (*workspace.Workspace, string, error) {
	sess, err := session(c)
	if err != nil {
		return nil, "", err
	}
	w, err := open(c)
	if err != nil {
		return w, sess, err
	}
	sess, err = a.pickSession(c, w, sess, false)
	return w, sess, err
}

// pickSession applies SPEC §6.3 to the session a command was given: the
// host session the hooks recorded when none was named, and for commands
// that only read history a unique prefix or the newest session. The
// output names the session where a person reads it (the overview's first
// line, log's heading, checkpoint's line), once, by its short id: no
// note on stderr for every read.
func (a *app) pickSession(c *cli.Context, w *workspace.Workspace, sess string, read bool) (string, error) {
	choice, err := workspace.PickSession(w, sess, c.IsSet("session"), read)
	if err != nil {
		return "", err
	}
	return choice.Session, nil
}

// session reads and validates --session.
func session(c *cli.Context) (string, error) {
	s := c.String("session")
	if err := spec.ValidateSessionKey(s); err != nil {
		return "", err
	}
	return s, nil
}

// readSession reads --session for a command that only reads history: a
// key, or REMOTE/KEY for a fetched session (docs/cli.md#fetch).
func readSession(c *cli.Context) (string, error) {
	s := c.String("session")
	if err := workspace.ValidateReadSession(s); err != nil {
		return "", err
	}
	return s, nil
}

// readSessionWorkspace is sessionWorkspace for read commands, which also
// take REMOTE/KEY.
func (a *app) readSessionWorkspace(c *cli.Context) (*workspace.Workspace, string, error) {
	sess, err := readSession(c)
	if err != nil {
		return nil, "", err
	}
	w, err := a.open(c)
	if err != nil {
		return w, sess, err
	}
	sess, err = a.pickSession(c, w, sess, true)
	return w, sess, err
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// short is a session as a person reads it: its short id in the open
// workspace (Workspace.ShortSession), the key when there is none.
func (a *app) short(key string) string {
	if a.ws == nil {
		return key
	}
	return a.ws.ShortSession(key)
}

// shortName is a SESSION:ID checkpoint name with the session by its
// short id.
func (a *app) shortName(name string) string {
	if sess, id, ok := strings.Cut(name, ":"); ok {
		return a.short(sess) + ":" + id
	}
	return name
}

// warn and note print one line each, folded: their text often carries a
// file name or a message from a state file. A note is not an error, and
// does not look like one: "note: …", where errors say "ctxgit: …".
func (a *app) warn(format string, args ...any) {
	fmt.Fprintf(a.stderr, "ctxgit: warning: %s\n", a.rel(oneLine(fmt.Sprintf(format, args...))))
}

func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, "note: %s\n", a.rel(oneLine(fmt.Sprintf(format, args...))))
}

// permute moves a command's flags ahead of its positional arguments, so
// `ctxgit decide "text" --why "…"` works: urfave/cli v2 stops parsing flags
// at the first positional argument. "--" still ends the flags.
func permute(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	for _, c := range cmds {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return args
	}
	start := 2
	if len(args) > 2 {
		for _, sub := range cmd.Subcommands {
			if sub.HasName(args[2]) {
				cmd, start = sub, 3
			}
		}
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, positional []string
	rest := args[start:]
	for i := 0; i < len(rest); i++ {
		tok := rest[i]
		switch {
		case tok == "--":
			positional = append(positional, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(tok, "-") && tok != "-":
			flags = append(flags, tok)
			name := strings.TrimLeft(tok, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
		default:
			positional = append(positional, tok)
		}
	}
	out := append(append([]string{}, args[:start]...), flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// nonNil makes a nil slice an empty one, so JSON prints [] and not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func errorStrings(errs []error) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, oneLine(e.Error()))
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
