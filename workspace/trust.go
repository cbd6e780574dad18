package workspace

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// ConfigTrust is what the workspace's config asks for that would weaken
// its user's protection (SPEC §11.1), and whether the user accepted it.
// Unaccepted, those keys keep their defaults.
type ConfigTrust struct {
	Weakenings []spec.Weakening
	// Token accepts exactly these (spec.AcceptToken).
	Token    string
	Accepted bool
}

// trustConfig applies SPEC §11.1 to cfg: a value weaker than its
// default stays only if the git config of the user (the repository's,
// or the global one; never a file in the workspace) accepts its token.
func trustConfig(cfg *spec.Config, repo *vcs.RepoInfo) ConfigTrust {
	ws := cfg.Weakenings()
	if len(ws) == 0 {
		return ConfigTrust{}
	}
	t := ConfigTrust{Weakenings: ws, Token: spec.AcceptToken(ws)}
	commonDir := ""
	if repo != nil {
		commonDir = repo.CommonDir
	}
	for _, v := range vcs.GitConfigAll(commonDir, spec.AcceptConfigKey) {
		t.Accepted = t.Accepted || strings.TrimSpace(v) == t.Token
	}
	if !t.Accepted {
		cfg.ResetWeakenings(ws)
	}
	return t
}

// AcceptCommand is the command that accepts the config's weakenings: in
// the repository's own git config, or, for a workspace outside git, the
// user's global one.
func (w *Workspace) AcceptCommand() string {
	where := ""
	if w.Repo == nil {
		where = "--global "
	}
	return "git config " + where + "--add " + spec.AcceptConfigKey + " " + w.Trust.Token
}

// configNoticeFile records the token this clone was last told of.
const configNoticeFile = "config-notice"

// ConfigNotice is what to tell the user of the settings the config asks
// for and ctxgit did not apply (SPEC §11.1), one line each: nil when
// there are none, or when this clone was told of exactly these already
// (MarkConfigTold). A marker a repository planted can only silence this
// notice, never apply a setting; doctor tells every time.
func (w *Workspace) ConfigNotice() []string {
	t := w.Trust
	if len(t.Weakenings) == 0 || t.Accepted {
		return nil
	}
	if data, err := ReadLocal(w.Root, w.LocalPath(configNoticeFile), 64); err == nil && strings.TrimSpace(string(data)) == t.Token {
		return nil
	}
	lines := []string{fmt.Sprintf("%s asks for %s weaker than ctxgit's defaults; the defaults stay in force until you accept them (SPEC §11.1):",
		spec.ConfigPath, spec.Plural(len(t.Weakenings), "setting"))}
	for _, wk := range t.Weakenings {
		lines = append(lines, "  "+wk.Key+": "+wk.Value+" ("+wk.Why+")")
	}
	return append(lines, "if you trust this repository's settings: "+w.AcceptCommand())
}

// MarkConfigTold records that this clone was told ConfigNotice's lines,
// where `.ctxgit/local/` exists by now: telling creates nothing.
func (w *Workspace) MarkConfigTold() {
	if w.Trust.Token != "" && !w.Trust.Accepted && localExists(w.Root) {
		WriteLocal(w.Root, w.LocalPath(configNoticeFile), []byte(w.Trust.Token+"\n"), 0o644)
	}
}
