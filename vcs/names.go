package vcs

// RefusedName reports whether git refuses a tree entry of this name (SPEC
// §9.1): a ".git" in any of its case, NTFS or HFS+ spellings, or a symlink
// named ".gitmodules". Readers that write a tree's entries back into a
// worktree use it, so a tree from elsewhere cannot write into a
// repository's own directory.
func RefusedName(name string, symlink bool) bool { return gitRefuses(name, symlink) }
