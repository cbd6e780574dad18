package hostconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/safetext"
	"github.com/ctxgit/ctxgit/spec"
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
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingOK, Message: fmt.Sprintf("%s: %s in %s, running %s", in.Host, spec.Plural(len(in.Entries), "hook"), in.Path, strings.Join(in.Programs, ", "))})
		}
		switch in.Host {
		case Codex:
			r = append(r, doctorCodexTrust(w)...)
		case Copilot:
			r = append(r, doctorCopilotTrust(w)...)
		}
		if len(workspace.HooksRan(w.Root, string(in.Host))) == 0 {
			fix := fmt.Sprintf("start %s in this workspace for a session; if doctor still says so, %s does not load %s", in.Host, in.Host, in.Path)
			switch in.Host {
			case Codex:
				fix = "Codex runs a project's hooks only once the project and each hook are trusted: start codex here, trust the folder, then review and trust ctxgit's hooks in /hooks"
			case Copilot:
				fix = "Copilot CLI runs a repository's hooks only in a folder you trust: start copilot here and trust the folder"
			case OpenCode:
				fix = "start opencode here: it loads .opencode/plugins/ at startup"
			}
			r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingNote,
				Message: fmt.Sprintf("%s: the hooks in %s have never run in this workspace", in.Host, in.Path), Fix: fix})
		}
	}
	return r
}

// doctorCodexTrust reports what Codex's own config says of ctxgit's
// hooks: an untrusted project or hook is skipped without a word.
func doctorCodexTrust(w *workspace.Workspace) []workspace.Finding {
	t, ok := readCodexTrust(w.Root, w.Env.Getenv)
	if !ok {
		return []workspace.Finding{{Check: "hooks", Level: workspace.FindingNote,
			Message: fmt.Sprintf("codex: cannot read %s: whether Codex trusts the hooks is unknown", t.Config)}}
	}
	var r []workspace.Finding
	if !t.ProjectTrusted {
		r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingWarning,
			Message: fmt.Sprintf("codex: %s trusts no folder holding this workspace, and Codex loads .codex/hooks.json only in a trusted project", t.Config),
			Fix:     "start codex here and trust the folder when it asks"})
	}
	if len(t.Awaiting) > 0 {
		r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingWarning,
			Message: fmt.Sprintf("codex: %d of %s await your trust in Codex (%s): Codex skips them without a word", len(t.Awaiting), spec.Plural(t.Entries, "ctxgit hook"), strings.Join(t.Awaiting, ", ")),
			Fix:     "start codex here, open /hooks and trust ctxgit's hooks; a changed entry needs trusting again"})
	} else if t.Entries > 0 && t.ProjectTrusted {
		r = append(r, workspace.Finding{Check: "hooks", Level: workspace.FindingOK,
			Message: fmt.Sprintf("codex: %s records a trust for each of ctxgit's %s (Codex asks again if an entry changed since)", t.Config, spec.Plural(t.Entries, "hook"))})
	}
	return r
}

// relativeTo drops root from the paths in msg, as workspace's own
// findings do, so a finding names files as the user sees them.
func relativeTo(root, msg string) string {
	return strings.ReplaceAll(msg, root+string(filepath.Separator), "")
}
