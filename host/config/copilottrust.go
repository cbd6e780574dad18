package hostconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/internal/regfile"
	"github.com/ctxgit/ctxgit/workspace"
)

// GitHub Copilot CLI runs a repository's .github/hooks only in a folder
// the person trusts, and keeps the folders trusted for future sessions in
// trustedFolders of its config.json ($COPILOT_HOME, default ~/.copilot;
// docs.github.com copilot-cli set-up-copilot-cli/configure-copilot-cli,
// "Editing trusted directories"), which trusts the files in and below each
// folder. An untrusted folder's hooks are skipped without a word, so
// doctor says so. The file opens with `//` comment lines ("This file is
// managed automatically"), which are dropped before it is read as JSON.

// maxCopilotConfig bounds how much of Copilot's config doctor reads.
const maxCopilotConfig = 4 << 20

// copilotConfigPath is Copilot CLI's config.json, "" when no home is known.
func copilotConfigPath(getenv func(string) string) string {
	home := hookpath.HostHome(getenv, "COPILOT_HOME", ".copilot")
	if home == "" {
		return ""
	}
	return filepath.Join(home, "config.json")
}

// copilotTrusts reports whether Copilot's config trusts root (a folder
// holding it is listed); ok is false when the config exists but cannot be
// read as Copilot writes it.
func copilotTrusts(path, root string) (trusted, ok bool) {
	// User-level, maybe linked from a dotfiles folder: followed, but
	// opened without blocking and read within a bound.
	data, err := regfile.ReadFileFollowing(path, maxCopilotConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return false, true // nothing trusted yet
	}
	if err != nil {
		return false, false
	}
	var kept [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("//")) {
			kept = append(kept, line)
		}
	}
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
		Legacy         []string `json:"trusted_folders"`
	}
	if err := json.Unmarshal(bytes.Join(kept, []byte("\n")), &cfg); err != nil {
		return false, false
	}
	for _, dir := range append(cfg.TrustedFolders, cfg.Legacy...) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		rel, err := filepath.Rel(filepath.Clean(dir), root)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true, true
		}
	}
	return false, true
}

// doctorCopilotTrust reports whether Copilot CLI trusts the workspace's
// folder, without which it skips the repository's hooks.
func doctorCopilotTrust(w *workspace.Workspace) []workspace.Finding {
	path := copilotConfigPath(w.Env.Getenv)
	if path == "" {
		return nil
	}
	trusted, ok := copilotTrusts(path, w.Root)
	switch {
	case !ok:
		return []workspace.Finding{{Check: "hooks", Level: workspace.FindingNote,
			Message: fmt.Sprintf("copilot: cannot read %s: whether Copilot CLI trusts this folder is unknown", path)}}
	case !trusted:
		return []workspace.Finding{{Check: "hooks", Level: workspace.FindingWarning,
			Message: fmt.Sprintf("copilot: %s trusts no folder holding this workspace, and Copilot CLI runs %s only in a trusted folder", path, copilotHooksFile),
			Fix:     "start copilot here and trust the folder for future sessions (or pass --trust-folder to one prompt-mode session)"}}
	}
	return []workspace.Finding{{Check: "hooks", Level: workspace.FindingOK,
		Message: fmt.Sprintf("copilot: %s trusts this folder", path)}}
}
