package hostconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/workspace"
)

// DoctorHooks is the `hooks` check of `ctxgit doctor` (docs/cli.md#doctor): the
// host hooks installed in w and whether the program each one runs
// exists. The command passes it to retention.Doctor in
// DoctorOptions.Hooks, because retention (like workspace) does not import
// host code.
func DoctorHooks(w *workspace.Workspace) []workspace.Finding {
	var r []workspace.Finding
	found := Inspect(w.Root)
	if len(found) == 0 {
		r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingNote, Message: "no host hooks installed (ctxgit init --host NAME installs them)"})
		return r
	}
	for _, in := range found {
		if in.Err != nil {
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingProblem, Message: fmt.Sprintf("%s: %s", in.Host, relativeTo(w.Root, safetext.Line(in.Err.Error()))),
				Fix: "fix the file by hand; ctxgit never rewrites a file it cannot read"})
			continue
		}
		broken := false
		for _, prog := range in.Programs {
			if ResolveProgram(prog, w.Env.Getenv) == "" {
				broken = true
				r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingProblem,
					Message: fmt.Sprintf("%s: %s runs %q, which is not an executable file or on PATH: the hooks fail", in.Host, in.Path, prog),
					Fix:     fmt.Sprintf("install ctxgit there, or reinstall the hooks with ctxgit init --host %s", in.Host)})
			}
		}
		if len(in.Missing) > 0 {
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingWarning,
				Message: fmt.Sprintf("%s: %s lacks ctxgit's %s", in.Host, in.Path, strings.Join(in.Missing, ", ")),
				Fix:     fmt.Sprintf("ctxgit init --host %s adds them", in.Host)})
		}
		if len(in.Extra) > 0 {
			events := make([]string, len(in.Extra))
			for i, e := range in.Extra {
				events[i], _, _ = strings.Cut(e, ": ")
			}
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingWarning,
				Message: fmt.Sprintf("%s: %s holds ctxgit hooks this version no longer installs (%s): an older install", in.Host, in.Path, strings.Join(events, ", ")),
				Fix:     fmt.Sprintf("ctxgit init --host %s removes them", in.Host)})
		}
		if len(in.Outdated) > 0 {
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingWarning,
				Message: fmt.Sprintf("%s: %s: %s differ from what this version writes: an older install", in.Host, in.Path, strings.Join(in.Outdated, ", ")),
				Fix:     fmt.Sprintf("ctxgit init --host %s rewrites them", in.Host)})
		}
		if !broken {
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingOK, Message: fmt.Sprintf("%s: %d hook(s) in %s, running %s", in.Host, len(in.Entries), in.Path, strings.Join(in.Programs, ", "))})
		}
	}
	return r
}

// relativeTo drops root from the paths in msg, as workspace's own
// findings do, so a finding names files as the user sees them.
func relativeTo(root, msg string) string {
	return strings.ReplaceAll(msg, root+string(filepath.Separator), "")
}
