package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/taskstate"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) recoverCommand() *cli.Command {
	return args("CHECKPOINT?").command(&cli.Command{
		Name:  "recover",
		Usage: "print the recovery block of the newest checkpoint, once",
		Flags: []cli.Flag{rootFlag, sessionFlag(),
			&cli.IntFlag{Name: "budget", Usage: "block size in characters (default: recovery.budget_chars)"},
			&cli.DurationFlag{Name: "max-age", Usage: "freshness window for automatic recovery (default: recovery.max_age)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json"},
			&cli.BoolFlag{Name: "write", Usage: "also write the block to " + spec.RecoveryFile},
			&cli.BoolFlag{Name: "peek", Usage: "show without marking the checkpoint recovered"},
			&cli.BoolFlag{Name: "force", Usage: "show even if already recovered"},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if c.Bool("json") {
				format = "json"
			}
			if format != "text" && format != "json" {
				return spec.Usage("--format %q: want text or json", format)
			}
			sess, err := session(c)
			if err != nil {
				return err
			}
			w, err := a.open(c)
			if err != nil {
				return err
			}
			if sess, err = a.pickSession(c, w, sess, false); err != nil {
				return err
			}
			asJSON := func(res *workspace.RecoverResult) error {
				out := recoverResult{Block: res.Block, Marked: res.Marked, Note: res.Note, Written: res.Wrote}
				if r := res.Resolved; r != nil {
					id, commit, age := r.Checkpoint.Meta.CheckpointID, r.Commit.String(), int64(res.Age/time.Second)
					out.AgeSeconds, out.CheckpointID, out.Commit, out.Session = &age, &id, &commit, &r.Session
				}
				return a.printJSON(out)
			}
			// The block is printed before the checkpoint is marked
			// recovered: a failed write (a closed pipe, a full disk)
			// leaves it due instead of lost.
			emit := func(res *workspace.RecoverResult) error {
				switch {
				case format == "json":
					res.Marked = !c.Bool("peek")
					return asJSON(res)
				case res.Wrote != "":
					return nil
				}
				_, err := fmt.Fprint(a.stdout, res.Block)
				return err
			}
			res, err := w.Recover(workspace.RecoverOptions{
				Session: sess, SessionGiven: c.IsSet("session"), Name: c.Args().First(),
				Budget: c.Int("budget"), MaxAge: c.Duration("max-age"),
				Peek: c.Bool("peek"), Force: c.Bool("force"), Write: c.Bool("write"),
				Status: taskstate.PeekStatus(w, sess), Emit: emit,
			})
			if err != nil {
				return err
			}
			if res.Note != "" {
				a.note("%s", res.Note)
			}
			if res.Wrote != "" {
				a.note("wrote %s", res.Wrote)
			}
			if res.Block == "" && format == "json" {
				return asJSON(res)
			}
			return nil
		},
	})
}

// recoverResult is `ctxgit recover --json`. The checkpoint's fields are
// there only when one was found.
type recoverResult struct {
	AgeSeconds   *int64  `json:"age_seconds,omitempty"`
	Block        string  `json:"block"`
	CheckpointID *string `json:"checkpoint_id,omitempty"`
	Commit       *string `json:"commit,omitempty"`
	Marked       bool    `json:"marked"`
	Note         string  `json:"note"`
	Session      *string `json:"session,omitempty"`
	Written      string  `json:"written"`
}
