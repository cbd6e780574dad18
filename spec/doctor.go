package spec

// ExitUnhealthy is the exit code of `ctxgit doctor` when problems remain
// after it ran (and, with --fix, after its repairs) (SPEC §18.6).
const ExitUnhealthy = 7
