package vcs

import "strings"

// RefusedName reports whether git refuses a tree entry of this name (SPEC
// §9.1): a ".git" in any of its case, NTFS or HFS+ spellings, or a symlink
// named ".gitmodules". Readers that write a tree's entries back into a
// worktree use it, so a tree from elsewhere cannot write into a
// repository's own directory.
func RefusedName(name string, symlink bool) bool { return gitRefuses(name, symlink) }

// UnwritableName reports whether this system cannot hold a file of this
// name: on Windows, what Git for Windows refuses to check out
// (is_valid_win32_path in compat/mingw.c); elsewhere nothing. A tree made
// on Linux may hold such names.
func UnwritableName(name string) bool { return unwritableHere(name) }

// win32Refuses is is_valid_win32_path's rule, negated: a character
// Windows file names cannot hold (a control character, one of <>:"|?*\,
// the last two being a stream separator and a path separator), a
// trailing space or period, or a device name (CON, PRN, AUX, NUL,
// COM1-9, LPT1-9, CONIN$, CONOUT$), alone or with an extension.
func win32Refuses(name string) bool {
	if name == "" || strings.HasSuffix(name, " ") || strings.HasSuffix(name, ".") {
		return true
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 32 || strings.IndexByte(`<>:"|?*\`, c) >= 0 {
			return true
		}
	}
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '1' && base[3] <= '9'
}
