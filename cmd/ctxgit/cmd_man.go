package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// manCommand prints the man page, generated from the same definitions as
// --help and docs/cli.md.
func (a *app) manCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:        "man",
		Usage:       "print the ctxgit(1) man page (roff)",
		Description: examples("ctxgit man > /usr/local/share/man/man1/ctxgit.1", "ctxgit man | man -l -"),
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprint(a.stdout, a.manPage())
			return err
		},
	})
}
