package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/gitlink"
	"github.com/ctxgit/ctxgit/internal/safetext"
)

// gitHookCommand is what ctxgit's git hooks run (docs/cli.md#init). Like
// the host hooks it fails open: a commit never fails or waits because of
// ctxgit; an error is one line on stderr, which git shows, and exit 0.
func (a *app) gitHookCommand() *cli.Command {
	return args("HOOK", "MSGFILE", "SOURCE?", "SHA?").command(&cli.Command{
		Name:   "git-hook",
		Hidden: true,
		Action: func(c *cli.Context) error {
			if c.Args().Get(0) != gitlink.HookName {
				fmt.Fprintf(a.stderr, "ctxgit: git-hook: expected %s MSGFILE [SOURCE [SHA]] (left the commit alone)\n", gitlink.HookName)
				return nil
			}
			defer func() {
				if r := recover(); r != nil {
					fmt.Fprintf(a.stderr, "ctxgit: git hook: %v (left the commit alone)\n", r)
				}
			}()
			w, err := a.open(c)
			if err == nil {
				var res gitlink.PrepareResult
				res, err = gitlink.PrepareCommitMsg(c.Context, w, c.Args().Get(1), c.Args().Get(2), os.Getenv("CTXGIT_SESSION"))
				if err == nil && res.Busy {
					// A note, not an error: the commit is linked.
					fmt.Fprintf(a.stderr, "note: ctxgit's git hook: the workspace was busy for %s: linked %s, the newest checkpoint, without taking one\n",
						gitlink.LockWait, res.Link)
				}
			}
			if err != nil {
				fmt.Fprintf(a.stderr, "ctxgit: git hook: %s (no Ctxgit-Checkpoint trailer)\n", safetext.Line(err.Error()))
			}
			return nil
		},
	})
}
