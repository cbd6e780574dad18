package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/host/hooks"
	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// where is `ctxgit` with no command (docs/cli.md#description): a person's view
// of where the work stands. Outside a workspace it is the help.
type where struct {
	Root            string              `json:"root"`
	Branch          string              `json:"branch"`
	Session         *whereSession       `json:"session"`
	Context         *whereContext       `json:"context"`
	Plan            *wherePlan          `json:"plan"`
	NextAction      string              `json:"next_action"`
	LastFailure     *spec.FailureEntry  `json:"last_failure"`
	Newest          *whereCheckpoint    `json:"newest"`
	RecoveryPending bool                `json:"recovery_pending"`
	HookFailures    []hooks.HookFailure `json:"hook_failures"`
	// HookWarnings are doctor's words on the installed hooks that need
	// the person: hooks that never ran here, Codex hooks awaiting trust.
	HookWarnings []string `json:"hook_warnings"`
}

type whereSession struct {
	Key     string    `json:"key"`
	ShortID string    `json:"short_id"`
	Title   string    `json:"title"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	// Why says how it was chosen ("current claude-code session", …).
	Why string `json:"why,omitempty"`
}

type whereContext struct {
	Utilization float64 `json:"utilization"`
	Tokens      int64   `json:"tokens,omitempty"`
	Window      int64   `json:"window,omitempty"`
	Source      string  `json:"source"`
}

type wherePlan struct {
	Path  string `json:"path"`
	Goal  string `json:"goal"`
	Step  string `json:"step"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
}

type whereCheckpoint struct {
	CheckpointID string    `json:"checkpoint_id"`
	Commit       string    `json:"commit"`
	CreatedAt    time.Time `json:"created_at"`
	Trigger      string    `json:"trigger"`
	// ChangedSince are the workspace's files that differ from it now.
	ChangedSince []string `json:"changed_since"`
}

// whereAction answers `ctxgit` with no command.
func (a *app) whereAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return spec.Usage("%q is not a ctxgit command (ctxgit help lists them)", c.Args().First())
	}
	w, err := a.open(c)
	if err != nil {
		if exitCode(err) == spec.ExitNotFound && !c.IsSet("root") && !c.Bool("json") {
			return cli.ShowAppHelp(c) // no workspace here: what ctxgit is
		}
		return err
	}
	v, err := a.buildWhere(c.Context, w, c.String("session"), c.IsSet("session"))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if v.HookFailures == nil {
			v.HookFailures = []hooks.HookFailure{}
		}
		return a.printJSON(v)
	}
	if err := a.forPeople(c, false); err != nil {
		return err
	}
	a.printWhere(v, w.Env.Now(), w.Config.Pressure)
	return nil
}

// buildWhere is the view of the session named (with --session, or by the
// MCP server's CTXGIT_SESSION), else of the current one (SPEC §6.3).
func (a *app) buildWhere(ctx context.Context, w *workspace.Workspace, session string, named bool) (*where, error) {
	v := &where{Root: w.Root}
	if w.Repo != nil {
		v.Branch = workspace.Branch(w)
	}
	choice, err := workspace.PickSession(w, spec.DefaultSession, named, true)
	if err != nil {
		return nil, err
	}
	if named {
		if choice, err = workspace.PickSession(w, session, true, true); err != nil {
			return nil, err
		}
	}
	st := w.ReadState()
	if p := st.Plan; p != nil {
		done, total := p.Progress()
		v.Plan = &wherePlan{Path: st.PlanPath, Goal: p.Goal, Done: done, Total: total}
		if cur := p.Current(); cur != nil {
			v.Plan.Step = cur.Number + ". " + cur.Name
		}
	}
	v.LastFailure = st.LastFailure()
	if r, ok := taskstate.RecordedReading(w, choice.Session); ok {
		v.Context = &whereContext{Utilization: r.Value, Tokens: r.Tokens, Window: r.Window, Source: r.Source}
	}
	peek := hooks.PeekAt(w.Root, choice.Session)
	v.RecoveryPending, v.HookFailures = peek.RecoveryPending, peek.Failures
	v.HookWarnings = []string{}
	for _, f := range hostconfig.DoctorHooks(w) {
		if f.Level != workspace.FindingOK && (strings.Contains(f.Message, "never run") || strings.Contains(f.Message, "trust")) {
			v.HookWarnings = append(v.HookWarnings, f.Message)
		}
	}
	head, err := w.ResolveRead("@", choice.Session)
	if err != nil {
		if exitCode(err) != spec.ExitNotFound {
			return nil, err
		}
		return v, nil // no checkpoint yet
	}
	names := workspace.NamesOf(w, head)
	short := choice.Session
	if sessions, err := w.Sessions(); err == nil {
		keys := make([]string, len(sessions))
		for i, s := range sessions {
			keys[i] = s.Name
		}
		if id, ok := workspace.ShortIDs(keys)[choice.Session]; ok {
			short = id
		}
	}
	v.Session = &whereSession{Key: choice.Session, ShortID: short, Title: names.Title, Host: names.Host, Started: names.Started, Why: choice.Why}
	cp := head.Checkpoint
	v.NextAction = string(cp.Working.NextAction)
	v.Newest = &whereCheckpoint{CheckpointID: cp.Meta.CheckpointID, Commit: head.Commit.String(), CreatedAt: cp.Meta.CreatedAt,
		Trigger: cp.Meta.Trigger, ChangedSince: []string{}}
	if changed, err := workspace.ChangedSince(w, ctx, head); err == nil {
		v.Newest.ChangedSince = changed
	}
	return v, nil
}

// printWhere is the view in at most 25 lines.
// On a terminal the heading is bold, the context fill yellow from
// pressure.compress and red from pressure.critical, and failures red.
func (a *app) printWhere(v *where, now time.Time, pressure spec.PressureConfig) {
	out := a.stdout
	root := v.Root
	if v.Branch != "" {
		root += " (" + v.Branch + ")"
	}
	// The first line names the session every command below works on,
	// once, as a person names it: short id and title.
	if s := v.Session; s != nil {
		head := "ctxgit · session " + s.ShortID
		if s.Title != "" {
			head += " · " + safetext.Line(s.Title)
		}
		fmt.Fprintln(out, a.paint(styleBold, head))
		fmt.Fprintf(out, "root      %s\n", safetext.Path(root))
		switch {
		case s.Host != "" && !s.Started.IsZero():
			fmt.Fprintf(out, "host      %s · started %s\n", s.Host, relativeTime(now, s.Started))
		case s.Host != "":
			fmt.Fprintf(out, "host      %s\n", s.Host)
		case !s.Started.IsZero():
			fmt.Fprintf(out, "started   %s\n", relativeTime(now, s.Started))
		}
	} else {
		fmt.Fprintln(out, a.paint(styleBold, "ctxgit · no session yet: a host's hooks or ctxgit checkpoint start one"))
		fmt.Fprintf(out, "root      %s\n", safetext.Path(root))
	}
	if x := v.Context; x != nil {
		line := fmt.Sprintf("%s %.0f%%", gaugeBar(x.Utilization), x.Utilization*100)
		if x.Window > 0 {
			line += fmt.Sprintf(" of %dk tokens", x.Window/1000)
		}
		switch {
		case x.Utilization >= pressure.Critical:
			line = a.paint(styleRed, line)
		case x.Utilization >= pressure.Compress:
			line = a.paint(styleYellow, line)
		}
		fmt.Fprintf(out, "context   %s (%s)\n", line, safetext.Line(x.Source))
	}
	if p := v.Plan; p != nil {
		if p.Goal != "" {
			fmt.Fprintf(out, "goal      %s\n", safetext.Line(truncate(p.Goal, 100)))
		}
		step := fmt.Sprintf("%d of %d done", p.Done, p.Total)
		if p.Step != "" {
			step += "; now " + safetext.Line(truncate(p.Step, 80))
		}
		fmt.Fprintf(out, "step      %s\n", step)
	} else {
		fmt.Fprintf(out, "plan      none (the agent writes .active-plan.md)\n")
	}
	if v.NextAction != "" {
		fmt.Fprintf(out, "next      %s\n", safetext.Line(truncate(v.NextAction, 100)))
	}
	if f := v.LastFailure; f != nil {
		line := safetext.Line(truncate(f.Summary, 90))
		if f.Type != "" {
			line += fmt.Sprintf(" (%s → %s)", f.Type, f.Action)
		}
		fmt.Fprintf(out, "failure   %s\n", a.paint(styleRed, line))
	}
	if n := v.Newest; n != nil {
		line := fmt.Sprintf("%s · %s · %s", a.paint(styleYellow, n.CheckpointID), relativeTime(now, n.CreatedAt), n.Trigger)
		switch k := len(n.ChangedSince); {
		case k == 0:
			line += " · nothing changed since"
		default:
			shown := n.ChangedSince
			if len(shown) > 3 {
				shown = shown[:3]
			}
			quoted := make([]string, len(shown))
			for i, p := range shown {
				quoted[i] = safetext.Path(p)
			}
			more := ""
			if k > len(shown) {
				more = ", …"
			}
			line += fmt.Sprintf(" · %s changed since: %s%s", spec.Plural(k, "file"), strings.Join(quoted, ", "), more)
		}
		fmt.Fprintf(out, "newest    %s\n", line)
	}
	if v.RecoveryPending {
		fmt.Fprintf(out, "recovery  pending: the host's next event brings it to the agent\n")
	}
	for i, f := range v.HookFailures {
		if i == 3 {
			fmt.Fprintf(out, "hooks     … %d more (ctxgit doctor)\n", len(v.HookFailures)-3)
			break
		}
		fmt.Fprintf(out, "hooks     %s (ctxgit doctor says why)\n", a.paint(styleRed, fmt.Sprintf("%s %s failed %s", f.Host, f.Event, relativeTime(now, f.At))))
	}
	for i, m := range v.HookWarnings {
		if i == 3 {
			fmt.Fprintf(out, "hooks     … %d more (ctxgit doctor)\n", len(v.HookWarnings)-3)
			break
		}
		fmt.Fprintf(out, "hooks     %s (ctxgit doctor says what to do)\n", safetext.Line(m))
	}
	fmt.Fprintf(out, "\n%s\n", a.paint(styleDim, "ctxgit log · ctxgit diff · ctxgit report · ctxgit help"))
}

// gaugeBar is a ten-cell bar of a utilisation.
func gaugeBar(u float64) string {
	n := int(u*10 + 0.5)
	n = max(0, min(n, 10))
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", 10-n) + "]"
}
