package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
)

func (a *app) showCommand() *cli.Command {
	return args("CHECKPOINT?").command(&cli.Command{
		Name:  "show",
		Usage: "print a checkpoint (default: the session's newest)",
		Flags: []cli.Flag{rootFlag, jsonFlag, sessionFlag()},
		Action: func(c *cli.Context) error {
			w, sess, err := a.readSessionWorkspace(c)
			if err != nil {
				return err
			}
			r, err := w.ResolveRead(c.Args().First(), sess)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(showResult{Checkpoint: r.Checkpoint, Commit: r.Commit.String(), Session: r.Session})
			}
			data, err := spec.MarshalCheckpoint(r.Checkpoint)
			if err != nil {
				return err
			}
			// The YAML as stored, with anything that could hide or
			// rewrite what a reader sees made visible (SPEC §10.1).
			fmt.Fprintf(a.stdout, "# commit %s (session %s)\n%s", r.Commit, r.Session, safetext.Visible(string(data)))
			return nil
		},
	})
}

// showResult is `ctxgit show --json`.
type showResult struct {
	Checkpoint *spec.Checkpoint `json:"checkpoint"`
	Commit     string           `json:"commit"`
	Session    string           `json:"session"`
}
