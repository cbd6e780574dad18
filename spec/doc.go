// Package spec holds the ctxgit/v1 file-convention spec: the Go types of every
// state file (config, plan, failure log, decisions, task state, checkpoint),
// their validation, the session-key and ref-name rules, and the exit codes.
//
// The normative text is SPEC.md beside this file; code and tests cite its
// sections as "SPEC §N".
package spec

// Version is the spec version every file and commit names.
const Version = "ctxgit/v1"
