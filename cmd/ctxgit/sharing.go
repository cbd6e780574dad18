package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
	"github.com/ctxgit/ctxgit/workspace"
)

// Sharing checkpoints with a remote (SPEC §19): push, fetch, and git run
// on the checkpoint store.

func (a *app) pushCommand() *cli.Command {
	// Checkpoints leave the machine only where the user says: no default
	// remote.
	return args("REMOTE").orSay("push needs a remote: ctxgit push REMOTE (e.g. origin, or a URL or path)").command(&cli.Command{
		Name:  "push",
		Usage: "send this workspace's sessions to REMOTE (named explicitly: nothing is pushed by default), as fast-forwards",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace remote sessions that are not ancestors of the local ones"},
			&cli.StringFlag{Name: "as", Usage: "name the remote under refs/ctxgit/remotes/ when REMOTE is a URL or path"},
			timeoutFlag,
		},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			res, err := w.Push(workspace.SyncOptions{Remote: c.Args().First(), As: c.String("as"), Force: c.Bool("force"), Messages: a.remoteMessages(), Timeout: c.Duration("timeout")})
			if res != nil {
				if perr := a.printSync(res, "pushed to", c.Bool("json")); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	})
}

// timeoutFlag bounds each git run against a network remote (SPEC §19.5).
var timeoutFlag = &cli.DurationFlag{Name: "timeout", Usage: "give up on a network remote after `DURATION` (e.g. 90s; default: git config ctxgit.remoteTimeout, else 5m)"}

func (a *app) fetchCommand() *cli.Command {
	return args("REMOTE?").command(&cli.Command{
		Name:  "fetch",
		Usage: "copy a remote's sessions (default origin) to refs/ctxgit/remotes/REMOTE/",
		Flags: []cli.Flag{rootFlag, jsonFlag,
			&cli.BoolFlag{Name: "prune", Usage: "drop fetched sessions the remote no longer has"},
			&cli.StringFlag{Name: "as", Usage: "name the remote under refs/ctxgit/remotes/ when REMOTE is a URL or path"},
			timeoutFlag,
		},
		Action: func(c *cli.Context) error {
			w, err := a.open(c)
			if err != nil {
				return err
			}
			res, err := w.Fetch(workspace.SyncOptions{Remote: c.Args().First(), As: c.String("as"), Prune: c.Bool("prune"), Messages: a.remoteMessages(), Timeout: c.Duration("timeout")})
			if res != nil {
				if perr := a.printSync(res, "fetched from", c.Bool("json")); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	})
}

// printSync prints a push's or fetch's result: a heading, then one line
// per session.
func (a *app) printSync(res *workspace.SyncResult, verb string, asJSON bool) error {
	for _, warn := range res.Warnings {
		a.warn("%s", warn)
	}
	if asJSON {
		refs := []map[string]any{}
		for _, r := range res.Refs {
			m := map[string]any{"session": r.Session, "ref": r.Ref, "local_ref": r.Local, "status": r.Status,
				"old": hashOrEmpty(r.Old), "new": hashOrEmpty(r.New), "checkpoint_id": r.CheckpointID}
			if r.Reason != "" {
				m["reason"] = r.Reason
			}
			refs = append(refs, m)
		}
		return a.printJSON(map[string]any{"remote": res.Remote, "url": res.URL, "objects": res.Objects, "refs": refs})
	}
	fmt.Fprintf(a.stdout, "%s %s (%s): %d objects\n", verb, res.Remote, res.URL, res.Objects)
	if len(res.Refs) == 0 {
		fmt.Fprintln(a.stdout, "no sessions there")
	}
	for _, r := range res.Refs {
		detail := ""
		switch r.Status {
		case workspace.RefNew:
			detail = fmt.Sprintf("%s %s", r.CheckpointID, r.New.Short())
		case workspace.RefFastForward, workspace.RefForced:
			detail = fmt.Sprintf("%s %s..%s", r.CheckpointID, r.Old.Short(), r.New.Short())
		case workspace.RefUpToDate:
			detail = r.CheckpointID
		case workspace.RefDeleted:
			detail = "was " + r.Old.Short()
		case workspace.RefRejected:
			detail = r.Reason // the remote's words
		}
		fmt.Fprintf(a.stdout, "%-12s  %s  %s\n", r.Status, oneLine(r.Session), oneLine(detail))
	}
	return nil
}

func hashOrEmpty(h vcs.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// remoteMessages passes what the remote says (its hooks' output) to
// stderr, a line at a time, each marked as the remote's.
func (a *app) remoteMessages() io.Writer {
	return &prefixLines{w: a.stderr, prefix: "ctxgit: remote: "}
}

type prefixLines struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n")
		if i < 0 && len(p.buf) < maxRemoteLine {
			return len(b), nil
		}
		if i < 0 {
			i = maxRemoteLine - 1 // a remote that never ends its line
		}
		// The remote's text, folded: it cannot forge a line of ours or
		// reach the terminal with escapes.
		if line := oneLine(string(p.buf[:i+1])); line != "" {
			fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
		}
		p.buf = p.buf[i+1:]
	}
}

// maxRemoteLine bounds what is kept of a remote's unfinished line.
const maxRemoteLine = 4096

// readSession reads --session for a command that only reads history: a
// key, or REMOTE/KEY for a fetched session (SPEC §19.4).
func readSession(c *cli.Context) (string, error) {
	s := c.String("session")
	if err := workspace.ValidateReadSession(s); err != nil {
		return "", err
	}
	return s, nil
}

// readSessionWorkspace is sessionWorkspace for read commands, which also
// take REMOTE/KEY.
func (a *app) readSessionWorkspace(c *cli.Context) (*workspace.Workspace, string, error) {
	sess, err := readSession(c)
	if err != nil {
		return nil, "", err
	}
	w, err := a.open(c)
	if err != nil {
		return w, sess, err
	}
	sess, err = a.pickSession(c, w, sess, true)
	return w, sess, err
}

// gitNotFoundExit is the exit status of `ctxgit git` without a git to
// run: a shell's for a command it cannot find (SPEC §19.6).
const gitNotFoundExit = 127

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
			cmd := exec.Command(git, args...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.stdout, a.stderr
			cmd.Env = gitEnviron(os.Environ(), vars)
			err = cmd.Run()
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
