package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

// stateCommand edits the task state safely: under the lock, atomically,
// with updated_at kept, so nobody hand-edits YAML under pressure.
func (a *app) stateCommand() *cli.Command {
	done := func(c *cli.Context, ts *spec.TaskState, msg string) error {
		if c.Bool("json") {
			return a.printJSON(ts)
		}
		fmt.Fprintln(a.stdout, msg)
		return nil
	}
	// edit is the action of a subcommand that changes the task state:
	// open the workspace, apply change, say what it did.
	edit := func(change func(*workspace.Workspace, *cli.Context) (*spec.TaskState, error), say func(*cli.Context, *spec.TaskState) string) cli.ActionFunc {
		return func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			ts, err := change(w, c)
			if err != nil {
				return err
			}
			return done(c, ts, say(c, ts))
		}
	}
	common := []cli.Flag{rootFlag, jsonFlag}
	return args().command(&cli.Command{
		Name:  "state",
		Usage: "read and update the durable task state",
		Flags: common,
		Action: func(c *cli.Context) error {
			task, err := a.existingTask(c)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(stateResult{Missing: nonNil(task.Missing), Path: task.Path, State: task.State})
			}
			data, err := spec.MarshalTaskState(".yaml", task.State)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "# %s\n%s", task.Path, safetext.Visible(string(data)))
			return nil
		},
		Subcommands: []*cli.Command{
			args("FIELD").command(&cli.Command{
				Name: "get", Usage: "print one field (a list: one item a line)", Flags: common,
				Action: func(c *cli.Context) error {
					task, err := a.existingTask(c)
					if err != nil {
						return err
					}
					lines, err := taskstate.TaskField(task.State, c.Args().First())
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return a.printJSON(stateFieldResult{Field: c.Args().First(), Values: nonNil(lines)})
					}
					for _, l := range lines {
						fmt.Fprintln(a.stdout, fieldLine(l))
					}
					return nil
				},
			}),
			args("FIELD", "VALUE").command(&cli.Command{
				Name: "set", Usage: "set a field: goal, status, current_phase, next_action, task_id, session_id, state_confidence", Flags: common,
				Action: edit(func(w *workspace.Workspace, c *cli.Context) (*spec.TaskState, error) {
					return taskstate.SetTaskField(w, c.Args().Get(0), c.Args().Get(1))
				}, func(c *cli.Context, _ *spec.TaskState) string { return c.Args().Get(0) + " set" }),
			}),
			args("FIELD", "VALUE").command(&cli.Command{
				Name: "add", Usage: "append to a list field (artifacts take --kind and --description, decisions --reason)",
				Flags: append(common, &cli.StringFlag{Name: "kind"}, &cli.StringFlag{Name: "description"}, &cli.StringFlag{Name: "reason"}),
				Action: edit(func(w *workspace.Workspace, c *cli.Context) (*spec.TaskState, error) {
					return taskstate.AddTaskItem(w, c.Args().Get(0), c.Args().Get(1), c.String("kind"), c.String("description"), c.String("reason"))
				}, func(c *cli.Context, _ *spec.TaskState) string { return "added to " + c.Args().Get(0) }),
			}),
			args("FIELD", "VALUE").command(&cli.Command{
				Name: "remove", Usage: "remove an item from a list field (artifacts by path, decisions by text)", Flags: common,
				Action: edit(func(w *workspace.Workspace, c *cli.Context) (*spec.TaskState, error) {
					return taskstate.RemoveTaskItem(w, c.Args().Get(0), c.Args().Get(1))
				}, func(c *cli.Context, _ *spec.TaskState) string { return "removed from " + c.Args().Get(0) }),
			}),
			args("STEP?").command(&cli.Command{
				Name: "step-done", Usage: "record a completed step (default: the plan's current step, marked done there too)", Flags: common,
				Action: edit(func(w *workspace.Workspace, c *cli.Context) (*spec.TaskState, error) {
					return taskstate.StepDone(w, c.Args().First())
				}, func(_ *cli.Context, ts *spec.TaskState) string {
					return "step recorded: " + ts.CompletedSteps[len(ts.CompletedSteps)-1]
				}),
			}),
			args().command(&cli.Command{
				Name: "action", Usage: "record the last major action; a failure also goes to the failure log",
				Flags: append(common,
					&cli.StringFlag{Name: "summary", Usage: "required: what was done"},
					&cli.StringFlag{Name: "outcome", Usage: "required: success or failure"},
					&cli.StringFlag{Name: "type", Usage: "the action's kind (edit, test, deploy, …)"},
					&cli.StringFlag{Name: "failure-type", Usage: "for a failure: its failure-log type"},
					&cli.StringFlag{Name: "failure-action", Usage: "for a failure: Retry, Pivot, Escalate or Abort"},
				),
				Action: func(c *cli.Context) error {
					w, err := a.open(c)
					if err != nil {
						return err
					}
					var ft spec.FailureType
					var fa spec.FailureAction
					if v := c.String("failure-type"); v != "" {
						var ok bool
						if ft, ok = spec.ParseFailureType(v); !ok {
							return spec.Usage("--failure-type %q is not a failure type", v)
						}
					}
					if v := c.String("failure-action"); v != "" {
						var ok bool
						if fa, ok = spec.ParseFailureAction(v); !ok {
							return spec.Usage("--failure-action %q: want Retry, Pivot, Escalate or Abort", v)
						}
					}
					ts, err := taskstate.RecordAction(w, c.String("summary"), strings.ToLower(c.String("outcome")), c.String("type"), ft, fa)
					if err != nil {
						return err
					}
					return done(c, ts, "action recorded ("+ts.LastAction.Outcome+")")
				},
			}),
		},
	})
}

// fieldLine prints one value of `state get` on one line: each of its
// tab-separated fields (an artifact's path, kind, description) folded and
// cleaned (SPEC §10.1), and the whole JSON-quoted when it would read as a
// status signal, so a value of "STATUS:COMPLETE" is never a bare signal
// line.
func fieldLine(v string) string {
	fields := strings.Split(v, "\t")
	for i, f := range fields {
		fields[i] = safetext.Line(f)
	}
	l := strings.Join(fields, "\t")
	if strings.HasPrefix(l, "STATUS:") {
		q, _ := json.Marshal(l)
		return string(q)
	}
	return l
}

// stateResult is `ctxgit state --json`.
type stateResult struct {
	Missing []string        `json:"missing"`
	Path    string          `json:"path"`
	State   *spec.TaskState `json:"state"`
}

// stateFieldResult is `ctxgit state get --json`.
type stateFieldResult struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// existingTask reads the task state for state and state get, which have
// nothing to show without one.
func (a *app) existingTask(c *cli.Context) (*workspace.TaskRead, error) {
	w, err := a.open(c)
	if err != nil {
		return nil, err
	}
	task, err := w.ReadTaskState()
	if err != nil {
		return nil, err
	}
	if !task.Exists {
		return nil, spec.NotFound("%s does not exist: run `ctxgit ensure` to start a task", task.Path)
	}
	return task, nil
}
