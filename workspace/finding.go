package workspace

// Finding levels of `ctxgit doctor` (docs/cli.md#doctor).
const (
	FindingOK      = "ok"      // a check passed
	FindingNote    = "note"    // worth knowing, nothing wrong
	FindingWarning = "warning" // a suggestion; does not make the workspace unhealthy
	FindingProblem = "problem" // something is wrong; unhealthy unless fixed
)

// Finding is one result of a health check. It lives in the core, not in
// retention where doctor runs, because host/config checks the hooks it
// installed and returns its findings too: both layers above the core
// name it without importing each other.
type Finding struct {
	Check   string // config, state, locks, store, objects, temp, hooks, secrets
	Level   string
	Message string
	// Fix says what --fix does about it, or what to do by hand.
	Fix string
	// Fixed is true when --fix repaired it.
	Fixed bool
}
