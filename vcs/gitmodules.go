package vcs

import (
	"fmt"
	"strings"
)

// IsGitmodulesName reports whether a tree entry name is one git's fsck
// checks as a .gitmodules file: ".gitmodules" in any case (HFS+ and NTFS
// fold case), or NTFS's short name "gitmod~1".
func IsGitmodulesName(name string) bool {
	return strings.EqualFold(name, ".gitmodules") || strings.EqualFold(name, "gitmod~1")
}

// CheckGitmodules applies the checks `git fsck --strict` (and a remote's
// receive.fsckObjects) makes on a .gitmodules blob (fsck.c,
// fsck_gitmodules_fn): a submodule name with a ".." path component, and a
// url, path or update that git would take for an option or a command
// (CVE-2018-17456, CVE-2019-19604). A tree holding such a blob is refused
// by those remotes, so the snapshot leaves the file out. An unparseable
// file is only noted by fsck, and passes here too.
func CheckGitmodules(data []byte) error {
	var bad error
	eachGitConfig(data, func(key, value string) {
		if bad != nil || !strings.HasPrefix(key, "submodule.") {
			return
		}
		rest := key[len("submodule."):]
		dot := strings.LastIndexByte(rest, '.')
		if dot < 0 {
			return // [submodule] with no name: fsck skips it
		}
		name, field := rest[:dot], rest[dot+1:]
		switch {
		case !validSubmoduleName(name):
			bad = fmt.Errorf("disallowed submodule name %q", name)
		case field == "url" && !validSubmoduleURL(value):
			bad = fmt.Errorf("submodule %q: disallowed url %q", name, value)
		case field == "path" && strings.HasPrefix(value, "-"):
			bad = fmt.Errorf("submodule %q: disallowed path %q", name, value)
		case field == "update" && strings.HasPrefix(value, "!"):
			bad = fmt.Errorf("submodule %q: disallowed update %q (runs a command)", name, value)
		}
	})
	return bad
}

// validSubmoduleName is git's check_submodule_name: no ".." component,
// with / and \ both separating components.
func validSubmoduleName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == ".." {
			return false
		}
	}
	return !strings.HasPrefix(name, "../") && !strings.HasPrefix(name, `..\`) && name != ".."
}

// validSubmoduleURL is the part of git's check_submodule_url that matters
// for a snapshot: no url that reads as a command-line option, and no
// newline, raw or percent-encoded, which git's credential code refuses.
func validSubmoduleURL(url string) bool {
	lower := strings.ToLower(url)
	return !strings.HasPrefix(url, "-") && !strings.ContainsAny(url, "\n\x00") && !strings.Contains(lower, "%0a")
}
