package main

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	hostconfig "github.com/ctxgit/ctxgit/host/config"
)

// printCommitAdvice says which of the files init made belong in the
// repository, and why, as the README's "What ctxgit writes" does: the shared
// settings and the hooks yes, the task's record by choice (checkpoints keep
// it either way), the machine-local files never, and what init wrote
// outside the repository (OpenClaw's hooks folder in the home directory)
// not as one to commit. program is what the hooks run: a host config
// naming this machine's absolute path is not for others. what names what
// init wrote into the host configs: "the hooks", or "the MCP server
// entry" for init --mcp. root is the workspace's.
func printCommitAdvice(w io.Writer, hosts []*hostconfig.Result, program, what, root string) {
	fmt.Fprintln(w, "\nwhat to commit:")
	fmt.Fprintln(w, "  yes: .ctxgit/config.yaml .ctxgit/.gitignore (settings every clone shares)")
	var shared, private, outside []string
	for _, h := range hosts {
		if h == nil || h.Path == "" {
			continue
		}
		p := path.Clean(strings.ReplaceAll(h.Path, `\`, "/"))
		if !inRepository(h.Path, root) {
			// OpenClaw's managed hooks folder, in the user's state
			// directory: a clone does not carry it.
			outside = append(outside, h.Path)
			continue
		}
		if strings.HasSuffix(p, ".local.json") {
			private = append(private, p)
		} else {
			shared = append(shared, p)
		}
	}
	if len(shared) > 0 {
		if program == hostconfig.DefaultCommand {
			fmt.Fprintf(w, "  yes: %s (%s, for everyone who clones; %s ctxgit from PATH)\n", strings.Join(shared, " "), what, runs(what))
		} else {
			fmt.Fprintf(w, "  not yet: %s (%s %s %s, a path on this machine: put ctxgit on PATH and run init --host again first)\n", strings.Join(shared, " "), what, strings.Fields(runs(what))[1], program)
		}
	}
	if len(private) > 0 {
		fmt.Fprintf(w, "  no: %s (private by design: --local)\n", strings.Join(private, " "))
	}
	if len(outside) > 0 {
		fmt.Fprintf(w, "  not in the repository: %s (on this machine only; each person installs it with ctxgit init --host)\n", strings.Join(outside, " "))
	}
	fmt.Fprintln(w, "  your choice: .active-plan.md .ctxgit/decisions.md .ctxgit/failure-log.md (the task's record; checkpoints keep them either way)")
	fmt.Fprintln(w, "  never: .ctxgit/local/ .ctxgit/store.git/ .ctxgit/checkpoint.yaml (machine-local; already ignored)")
}

// runs is "they run" or "it runs" for what: the hooks run, the entry runs.
func runs(what string) string {
	if strings.HasSuffix(what, "hooks") {
		return "they run"
	}
	return "it runs"
}

// inRepository reports whether a file init names (workspace-relative, or
// absolute, or "~/…" for one in the home directory) lies inside the
// workspace at root: only those can be committed.
func inRepository(p, root string) bool {
	if strings.HasPrefix(p, "~") {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
