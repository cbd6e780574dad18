package vcs

import (
	"context"
	"io"
	"os/exec"
)

// RunGitAttached runs git for a person at ctxgit's command line (`ctxgit
// git`): bounded as every git child ctxgit runs is (gitproc.go) in its
// process group, its death with ctxgit and its stop when ctx is done (a
// Ctrl-C or SIGTERM ctxgit handles), but with no memory bound, no cap on
// its output and no timeout: stdin, stdout and stderr are the caller's,
// passed through, and git may wait on the person (an editor, a pager, a
// passphrase) as long as it likes. Once asked to stop, git is waited for
// without a deadline, so a pager it waits on is not orphaned on the
// terminal. The error is exec's: an *exec.ExitError carries git's status.
func RunGitAttached(ctx context.Context, git string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.SysProcAttr = gitProcAttr()
	cmd.Cancel = func() error { return stopGit(cmd) }
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := runGit(cmd, noMemoryLimit)
	killGroup(cmd)
	return err
}

// noMemoryLimit tells runGit to set none.
const noMemoryLimit = 0
