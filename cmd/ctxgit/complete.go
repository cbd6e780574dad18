package main

import (
	"bufio"
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	hostconfig "github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

// completeCommandName is the hidden command the completion scripts call
// (docs/cli.md#completion).
const completeCommandName = "__complete"

// completeCommand lists the candidates for the last of WORDS, the words
// typed after "ctxgit" up to the cursor (the last one possibly empty):
// one a line, "VALUE" or "VALUE<TAB>DESCRIPTION". It only reads, prints
// nothing on stderr and always exits 0: a shell's completion must never
// fail loudly.
func (a *app) completeCommand() *cli.Command {
	return &cli.Command{
		Name:            completeCommandName,
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			if len(words) == 0 {
				words = []string{""}
			}
			out := bufio.NewWriter(a.stdout)
			for _, cand := range a.candidates(words) {
				fmt.Fprintln(out, cand)
			}
			out.Flush()
			return nil
		},
	}
}

// completion is what the words before the cursor say: the command and
// subcommand typed, the positional arguments before the cursor, the flag
// whose value the cursor is on, and --root and --session when typed.
type completion struct {
	cmd, sub   *cli.Command
	positional int
	valueOf    string
	root, sess string
}

// parseWords reads the words before the cursor.
func parseWords(top []*cli.Command, before []string) completion {
	var st completion
	takesValue := func(name string) bool {
		flags := globalFlags()
		if st.sub != nil {
			flags = st.sub.Flags
		} else if st.cmd != nil {
			flags = st.cmd.Flags
		}
		for _, f := range flags {
			if _, isBool := f.(*cli.BoolFlag); isBool {
				continue
			}
			for _, n := range f.Names() {
				if n == name {
					return true
				}
			}
		}
		return globalTakesValue(name)
	}
	ended := false
	for i := 0; i < len(before); i++ {
		w := before[i]
		switch {
		case w == "--" && !ended:
			ended = true
		case strings.HasPrefix(w, "-") && w != "-" && !ended:
			name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if !hasValue && takesValue(name) {
				if i+1 == len(before) {
					st.valueOf = name
					return st
				}
				i++
				value = before[i]
			}
			switch name {
			case "root":
				st.root = value
			case "session", "s":
				st.sess = value
			}
		case st.cmd == nil:
			st.cmd = findCommand(top, w)
			if st.cmd == nil {
				return completion{positional: -1}
			}
		case st.sub == nil && len(st.cmd.Subcommands) > 0:
			st.sub = findCommand(st.cmd.Subcommands, w)
			if st.sub == nil {
				return completion{positional: -1}
			}
		default:
			st.positional++
		}
	}
	return st
}

// candidates lists the completions of the last word.
func (a *app) candidates(words []string) []string {
	cur := words[len(words)-1]
	st := parseWords(a.cli.Commands, words[:len(words)-1])
	var all []string
	switch {
	case st.positional < 0:
		return nil
	case st.valueOf != "":
		all = a.flagValues(st)
	case strings.HasPrefix(cur, "-"):
		all = flagCandidates(st)
	case st.cmd == nil:
		all = commandCandidates(a.cli.Commands)
	case st.sub == nil && len(st.cmd.Subcommands) > 0:
		all = commandCandidates(st.cmd.Subcommands)
	default:
		all = a.argValues(st, cur)
	}
	var out []string
	for _, cand := range all {
		value, _, _ := strings.Cut(cand, "\t")
		if strings.HasPrefix(value, cur) {
			out = append(out, cand)
		}
	}
	return out
}

func commandCandidates(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Name+"\t"+c.Usage)
		}
	}
	return out
}

func flagCandidates(st completion) []string {
	flags := globalFlags()
	if st.sub != nil {
		flags = st.sub.Flags
	} else if st.cmd != nil {
		flags = st.cmd.Flags
	}
	var out []string
	for _, f := range flags {
		usage := ""
		if df, ok := f.(cli.DocGenerationFlag); ok {
			usage = df.GetUsage()
		}
		for _, n := range f.Names() {
			dash := "--"
			if len(n) == 1 {
				dash = "-"
			}
			out = append(out, dash+n+"\t"+usage)
		}
	}
	return out
}

// flagValues are the candidates for a flag's value.
func (a *app) flagValues(st completion) []string {
	switch st.valueOf {
	case "session", "s":
		return a.sessionCandidates(st)
	case "host":
		return hostCandidates()
	case "since":
		return a.checkpointCandidates(st, "")
	}
	return nil
}

// argValues are the candidates for a positional argument.
func (a *app) argValues(st completion, cur string) []string {
	path := st.cmd.Name
	if st.sub != nil {
		path += " " + st.sub.Name
	}
	switch {
	case path == "show" || path == "recover" || path == "restore":
		if st.positional == 0 {
			return a.checkpointCandidates(st, cur)
		}
	case path == "diff":
		if st.positional < 2 {
			return a.checkpointCandidates(st, cur)
		}
	case path == "plan mark":
		switch st.positional {
		case 0:
			return a.stepCandidates(st)
		case 1:
			return []string{"done", "in-progress", "pending", "failed"}
		}
	case path == "hook":
		if st.positional == 0 {
			return hostCandidates()
		}
	case path == "completion":
		if st.positional == 0 {
			return []string{"bash", "zsh", "fish"}
		}
	case path == "help":
		switch st.positional {
		case 0:
			return commandCandidates(a.cli.Commands)
		}
	}
	return nil
}

func hostCandidates() []string {
	var out []string
	for _, h := range hostconfig.Hosts {
		out = append(out, string(h))
	}
	return out
}

// completionWorkspace opens the workspace the words name, read-only and
// quietly: nil when there is none.
func completionWorkspace(st completion) *workspace.Workspace {
	env, err := workspace.DefaultEnv()
	if err != nil {
		return nil
	}
	root, err := workspace.FindRoot(env, st.root)
	if err != nil {
		return nil
	}
	w, err := workspace.Open(env, root)
	if err != nil {
		return nil
	}
	return w
}

// sessionCandidates are the sessions' short ids, described by title,
// host and checkpoint count.
func (a *app) sessionCandidates(st completion) []string {
	w := completionWorkspace(st)
	if w == nil {
		return nil
	}
	sessions, err := w.Sessions()
	if err != nil {
		return nil
	}
	keys := make([]string, len(sessions))
	for i, s := range sessions {
		keys[i] = s.Name
	}
	short := workspace.ShortIDs(keys)
	var out []string
	for _, key := range keys {
		head, err := w.Resolve("@", key)
		if err != nil {
			continue
		}
		names := workspace.NamesOf(w, head)
		n, _ := spec.ParseCheckpointID(head.Checkpoint.Meta.CheckpointID)
		desc := fmt.Sprintf("%s · %s · %s", orDash(names.Title), orDash(names.Host), spec.Plural(n, "checkpoint"))
		out = append(out, short[key]+"\t"+oneLine(desc))
	}
	sort.Strings(out)
	return out
}

// checkpointCandidates are the checkpoints of the session the words
// pick (SPEC §6.3, as a read), newest first, described by subject; with
// cur "KEY:…", those of session KEY, so prefixed.
func (a *app) checkpointCandidates(st completion, cur string) []string {
	w := completionWorkspace(st)
	if w == nil {
		return nil
	}
	prefix := ""
	given, named := st.sess, st.sess != ""
	if key, _, ok := strings.Cut(cur, ":"); ok {
		prefix, given, named = key+":", key, true
	}
	if given == "" {
		given = spec.DefaultSession
	}
	if workspace.ValidateReadSession(given) != nil {
		return nil
	}
	choice, err := workspace.PickSession(w, given, named, true)
	if err != nil {
		return nil
	}
	entries, err := w.Log(choice.Session, 0)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, prefix+e.CheckpointID+"\t"+oneLine(e.When.Format("2006-01-02 15:04")+" "+e.Subject))
	}
	return out
}

// stepCandidates are the plan's step numbers, described by name and
// status.
func (a *app) stepCandidates(st completion) []string {
	w := completionWorkspace(st)
	if w == nil {
		return nil
	}
	s := w.ReadState()
	if s.Plan == nil {
		return nil
	}
	var out []string
	for _, step := range s.Plan.Steps {
		out = append(out, step.Number+"\t"+oneLine(step.Name+" ("+string(step.Status)+")"))
	}
	return out
}
