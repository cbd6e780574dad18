package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/gitlink"
	"github.com/ctxgit/ctxgit/host/config"
	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) initCommand() *cli.Command {
	return args().command(&cli.Command{
		Name:  "init",
		Usage: "create .ctxgit/ (config, logs, .gitignore) and the checkpoint store; --host installs a host's hooks",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.StringSliceFlag{Name: "host", Usage: "install hooks for a host: claude-code, codex, gemini, cursor, openclaw, qwen-code, copilot, opencode (repeatable)"},
			&cli.BoolFlag{Name: "local", Usage: "Claude Code: write .claude/settings.local.json (private) instead of settings.json"},
			&cli.BoolFlag{Name: "uninstall", Usage: "with --host or --git-hooks: remove ctxgit's hooks only"},
			&cli.BoolFlag{Name: "git-hooks", Usage: "install a prepare-commit-msg hook that links each commit to its checkpoint (Ctxgit-Checkpoint trailer)"},
			&cli.BoolFlag{Name: "mcp", Usage: "with --host: add `ctxgit mcp` to the host's MCP config instead of its hooks; alone: print the entry for any other host"},
		},
		Action: func(c *cli.Context) error {
			w, err := a.openToCreate(c)
			if err != nil {
				return err
			}
			hosts := c.StringSlice("host")
			gitHooks := c.Bool("git-hooks")
			if c.Bool("uninstall") {
				if len(hosts) == 0 && !gitHooks {
					return spec.Usage("--uninstall needs --host or --git-hooks")
				}
				results, err := a.installFor(c, w, hosts, true)
				if err != nil {
					return err
				}
				gh, err := a.installGitHooks(c, w, gitHooks, true)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return a.printJSON(uninstallResult{Hosts: nonNil(results), GitHooks: gh, Root: w.Root})
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
			results, err := a.installFor(c, w, hosts, false)
			if err != nil {
				return err
			}
			a.printMCPSnippet(c, hosts)
			gh, err := a.installGitHooks(c, w, gitHooks, false)
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				what := "the hooks"
				if c.Bool("mcp") {
					what = "the MCP server entry"
				}
				printCommitAdvice(a.stdout, results, hookProgram(), what, w.Root)
			}
			if c.Bool("json") {
				return a.printJSON(initResult{Created: nonNil(res.Created), Existing: nonNil(res.Existing), Hosts: nonNil(results), GitHooks: gh, Root: w.Root, Store: res.Store})
			}
			// Advice for what is not installed yet, never for what is.
			if len(hosts) > 0 && !gitHooks && w.Repo != nil && !gitlink.Installed(c.Context, w) {
				fmt.Fprintln(a.stdout, "to link your commits to the checkpoints behind them: ctxgit init --git-hooks")
			}
			return nil
		},
	})
}

// initResult is `ctxgit init --json`: hosts is [] without --host, as
// every JSON list of the CLI is empty rather than null.
type initResult struct {
	Created  []string               `json:"created"`
	Existing []string               `json:"existing"`
	GitHooks *gitlink.InstallResult `json:"git_hooks,omitempty"`
	Hosts    []*hostconfig.Result   `json:"hosts"`
	Root     string                 `json:"root"`
	Store    string                 `json:"store"`
}

// uninstallResult is `ctxgit init --host H --uninstall --json`.
type uninstallResult struct {
	GitHooks *gitlink.InstallResult `json:"git_hooks,omitempty"`
	Hosts    []*hostconfig.Result   `json:"hosts"`
	Root     string                 `json:"root"`
}

// installGitHooks installs (or removes) the prepare-commit-msg hook when
// --git-hooks asks for it, and says what it did.
func (a *app) installGitHooks(c *cli.Context, w *workspace.Workspace, want, uninstall bool) (*gitlink.InstallResult, error) {
	if !want {
		return nil, nil
	}
	if w.Repo == nil {
		return nil, spec.Usage("--git-hooks: the workspace is not in a git repository")
	}
	var res gitlink.InstallResult
	var err error
	if uninstall {
		res, err = gitlink.Uninstall(c.Context, w.Repo.WorkTree)
	} else {
		res, err = gitlink.Install(c.Context, w.Repo.WorkTree, gitlink.ShellWord(hookProgram()))
	}
	if err != nil {
		return nil, err
	}
	if !c.Bool("json") {
		line := fmt.Sprintf("git hook %s: %s", res.Action, res.Path)
		if res.Chained != "" && !uninstall {
			line += fmt.Sprintf(" (runs the hook that was there first: %s)", res.Chained)
		}
		if res.Manager == gitlink.ManagerHusky && !uninstall {
			line += " (husky v9 runs it from .husky/_; ctxgit's block is at its end)"
		}
		fmt.Fprintln(a.stdout, line)
	}
	return &res, nil
}
