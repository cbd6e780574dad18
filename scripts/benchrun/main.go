// Command benchrun runs one sample of a benchmark and prints what the
// operating system accounted for it, on one line:
//
//	WALL_US CPU_US MAXRSS_KIB
//
// wall time from start to exit of the processes only (benchrun's own
// start is not in it), CPU time (user + system, the children each
// process waited for included) and the peak resident memory of the
// largest process. Used by scripts/bench-scale.sh.
//
//	benchrun -C DIR -- PROGRAM ARG...   one process
//	benchrun -plumbing DIR              git's own snapshot of DIR on a
//	                                    private index: git add -A,
//	                                    write-tree, commit-tree,
//	                                    update-ref, as four processes;
//	                                    their times summed, the largest
//	                                    peak
//
// A process that exits non-zero stops benchrun with its stderr (exit 1):
// a failed sample is not a fast one.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type usage struct {
	wall, cpu time.Duration
	maxrss    int64 // KiB
}

func (u *usage) add(o usage) {
	u.wall += o.wall
	u.cpu += o.cpu
	u.maxrss = max(u.maxrss, o.maxrss)
}

func main() {
	dir := flag.String("C", "", "run in this directory")
	plumbing := flag.String("plumbing", "", "time git's plumbing snapshot of this worktree")
	flag.Parse()
	var total usage
	var err error
	if *plumbing != "" {
		total, err = gitPlumbing(*plumbing)
	} else {
		if flag.NArg() == 0 {
			fmt.Fprintln(os.Stderr, "usage: benchrun [-C DIR] -- PROGRAM ARG... | benchrun -plumbing DIR")
			os.Exit(2)
		}
		total, _, err = run(*dir, nil, nil, flag.Args()...)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
	fmt.Printf("%d %d %d\n", total.wall.Microseconds(), total.cpu.Microseconds(), total.maxrss)
}

// gitPlumbing is scripts/bench-snapshot.sh's git_snapshot, each step a
// process of its own, nothing but git started.
func gitPlumbing(dir string) (usage, error) {
	env := append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(dir, ".git", "bench-index"))
	var total usage
	u, _, err := run(dir, env, nil, "git", "add", "-A")
	if err != nil {
		return total, err
	}
	total.add(u)
	u, tree, err := run(dir, env, nil, "git", "write-tree")
	if err != nil {
		return total, err
	}
	total.add(u)
	u, commit, err := run(dir, env, []byte("snap\n"), "git", "commit-tree", strings.TrimSpace(tree))
	if err != nil {
		return total, err
	}
	total.add(u)
	u, _, err = run(dir, env, nil, "git", "update-ref", "refs/bench/snap", strings.TrimSpace(commit))
	total.add(u)
	return total, err
}

// run runs one process and returns its usage and stdout.
func run(dir string, env []string, stdin []byte, argv ...string) (usage, string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	u := usage{wall: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		u.cpu = ps.UserTime() + ps.SystemTime()
		u.maxrss = maxRSS(ps)
	}
	if err != nil {
		return u, "", fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return u, stdout.String(), nil
}
