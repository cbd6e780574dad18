package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/workspace"
)

func (a *app) gitCommand() *cli.Command {
	return &cli.Command{
		Name:      "git",
		Usage:     "run git on the checkpoint store: ctxgit git -- log refs/ctxgit/sessions/default",
		ArgsUsage: "[--root DIR] [--] GIT-ARGS...",
		// Everything after `git` is git's, so its flags are not ours.
		SkipFlagParsing: true,
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			root, args, help, err := gitArgs(c.Args().Slice())
			if err != nil {
				return err
			}
			if help {
				return cli.ShowSubcommandHelp(c)
			}
			env, err := workspace.DefaultEnv()
			if err != nil {
				return err
			}
			rootDir, err := workspace.FindRoot(env, root)
			if err != nil {
				return err
			}
			w, err := workspace.Open(env, rootDir)
			a.ws = w
			if err != nil {
				return err
			}
			git, err := exec.LookPath("git")
			if err != nil {
				fmt.Fprintf(a.stderr, "ctxgit: git is not installed (no git in PATH); ctxgit itself does not need it, `ctxgit git` does\n")
				return exitError{gitNotFoundExit}
			}
			vars, err := w.GitEnv()
			if err != nil {
				return err
			}
			// Bounded as ctxgit's other git children (its group, its
			// death with ctxgit, stopped on ctxgit's Ctrl-C or SIGTERM),
			// while the person's terminal stays git's.
			err = workspace.RunGitAttached(c.Context, git, args, gitEnviron(os.Environ(), vars), a.stdin, a.stdout, a.stderr)
			var ee *exec.ExitError
			switch {
			case err == nil:
				return nil
			case errors.As(err, &ee):
				code := ee.ExitCode()
				if code < 0 {
					code = 128 + 9 // killed by a signal
				}
				return exitError{code}
			}
			return fmt.Errorf("running git: %w", err)
		},
	}
}

// gitNotFoundExit is the exit status of `ctxgit git` without a git to
// run: a shell's for a command it cannot find (docs/cli.md#git).
const gitNotFoundExit = 127

// gitArgs splits `ctxgit git`'s arguments: --root DIR (or --root=DIR) and
// -h/--help before the git arguments, an optional "--" between.
func gitArgs(in []string) (root string, args []string, help bool, err error) {
	for i := 0; i < len(in); i++ {
		switch tok := in[i]; {
		case tok == "--":
			return root, in[i+1:], false, nil
		case tok == "--root" || tok == "-root":
			if i+1 == len(in) {
				return "", nil, false, spec.Usage("--root needs a directory")
			}
			root = in[i+1]
			i++
		case strings.HasPrefix(tok, "--root="):
			root = strings.TrimPrefix(tok, "--root=")
		case tok == "-h" || tok == "--help":
			return "", nil, true, nil
		default:
			return root, in[i:], false, nil
		}
	}
	return root, nil, false, nil
}

// gitEnviron is the environment with the store's GIT_DIR (and work tree)
// in place of any the caller had.
func gitEnviron(environ []string, vars map[string]string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE":
			continue
		}
		out = append(out, kv)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE"} {
		if v, ok := vars[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}
