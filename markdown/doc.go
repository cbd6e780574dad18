// Package markdown parses the markdown state files of a ctxgit workspace —
// the plan (SPEC §4), the failure log (SPEC §5.1–§5.3) and the decisions log
// (SPEC §5.4) — into the spec types, and makes the small, line-preserving
// edits ctxgit itself writes: marking a plan step, appending a decision or a
// failure.
//
// People and agents write these files by hand, so parsing is lenient about
// form and strict only about bytes: a file with a NUL byte or invalid UTF-8
// is refused with the line of the first bad byte. Block structure (headings,
// lists, code blocks) comes from goldmark; the forms goldmark does not know,
// such as "3b." step labels, are read line by line. Edits touch only the
// lines they must, so a diff of an edited file shows exactly the change.
package markdown
