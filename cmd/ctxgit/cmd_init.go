package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/spec"
)

func (a *app) initCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "init",
		Usage: "create .ctxgit/ (config, logs, .gitignore) and the checkpoint store; --host installs a host's hooks",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.StringSliceFlag{Name: "host", Usage: "install hooks for a host: claude-code, codex, gemini, cursor, openclaw (repeatable)"},
			&cli.BoolFlag{Name: "local", Usage: "Claude Code: write .claude/settings.local.json (private) instead of settings.json"},
			&cli.BoolFlag{Name: "uninstall", Usage: "with --host: remove ctxgit's hooks only"},
		},
		Action: func(c *cli.Context) error {
			w, err := a.openToCreate(c)
			if err != nil {
				return err
			}
			hosts := c.StringSlice("host")
			if c.Bool("uninstall") {
				if len(hosts) == 0 {
					return spec.Usage("--uninstall needs --host")
				}
				results, err := a.installHosts(w, hosts, c.Bool("local"), true, c.Bool("json"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return a.printJSON(uninstallResult{Hosts: results, Root: w.Root})
				}
				return nil
			}
			res, err := w.Init()
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				for _, f := range res.Created {
					fmt.Fprintf(a.stdout, "created %s\n", f)
				}
				for _, f := range res.Existing {
					fmt.Fprintf(a.stdout, "kept    %s (already there)\n", f)
				}
				fmt.Fprintf(a.stdout, "checkpoints go to the %s\n", res.Store)
			}
			results, err := a.installHosts(w, hosts, c.Bool("local"), false, c.Bool("json"))
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				printCommitAdvice(a.stdout, results, hookProgram())
			}
			if c.Bool("json") {
				return a.printJSON(initResult{Created: nonNil(res.Created), Existing: nonNil(res.Existing), Hosts: nonNil(results), Root: w.Root, Store: res.Store})
			}
			return nil
		},
	})
}

// initResult is `ctxgit init --json`: hosts is [] without --host, as
// every JSON list of the CLI is empty rather than null.
type initResult struct {
	Created  []string             `json:"created"`
	Existing []string             `json:"existing"`
	Hosts    []*hostconfig.Result `json:"hosts"`
	Root     string               `json:"root"`
	Store    string               `json:"store"`
}

// uninstallResult is `ctxgit init --host H --uninstall --json`.
type uninstallResult struct {
	Hosts []*hostconfig.Result `json:"hosts"`
	Root  string               `json:"root"`
}
