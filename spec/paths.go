package spec

// Default workspace-relative paths (SPEC §3). All but the local directory and
// the private store are configurable under `paths:` in the config.
const (
	DirName            = ".ctxgit"
	ConfigPath         = ".ctxgit/config.yaml"
	LocalDir           = ".ctxgit/local"     // machine-local: never snapshotted or committed
	PrivateStoreDir    = ".ctxgit/store.git" // bare store for a workspace outside git
	CheckpointYAMLPath = ".ctxgit/checkpoint.yaml"
	ContextCheckpoint  = ".context-checkpoint.md"
	ContextRecovered   = ".context-checkpoint.recovered.md"
	RecoveryFile       = "CONTEXT_RECOVERY.md"
	DefaultPlan        = ".active-plan.md"
	DefaultFailureLog  = ".ctxgit/failure-log.md"
	FallbackFailureLog = "skills/failure-recovery/failure-log.md"
	DefaultDecisions   = ".ctxgit/decisions.md"
	DefaultTaskState   = ".ctxgit/task-state.yaml"
	DefaultSummaries   = ".ctxgit/summaries"
	LatestSummaryName  = "latest-summary.md"
	DefaultSelfModel   = "skills/self-model/capabilities.md"
	DefaultEnvModel    = "skills/env-model/environment.md"
)
