package spec

// TaskState is the durable task state `.ctxgit/task-state.yaml`, with the
// context-guardian field names kept exactly (SPEC §12.1).
type TaskState struct {
	SchemaVersion   int        `yaml:"schema_version" json:"schema_version"`
	TaskID          string     `yaml:"task_id" json:"task_id"`
	SessionID       string     `yaml:"session_id" json:"session_id"`
	Goal            string     `yaml:"goal" json:"goal"`
	Status          string     `yaml:"status" json:"status"`
	CurrentPhase    string     `yaml:"current_phase" json:"current_phase"`
	NextAction      string     `yaml:"next_action" json:"next_action"`
	CompletedSteps  []string   `yaml:"completed_steps" json:"completed_steps"`
	OpenIssues      []string   `yaml:"open_issues" json:"open_issues"`
	Constraints     []string   `yaml:"constraints" json:"constraints"`
	Artifacts       []Artifact `yaml:"artifacts" json:"artifacts"`
	StateConfidence float64    `yaml:"state_confidence" json:"state_confidence"`
	UpdatedAt       string     `yaml:"updated_at" json:"updated_at"`

	Plan                 []string       `yaml:"plan,omitempty" json:"plan,omitempty"`
	Decisions            []TaskDecision `yaml:"decisions,omitempty" json:"decisions,omitempty"`
	ImportantFacts       []string       `yaml:"important_facts,omitempty" json:"important_facts,omitempty"`
	LastAction           *LastAction    `yaml:"last_action,omitempty" json:"last_action,omitempty"`
	RecoveryInstructions []string       `yaml:"recovery_instructions,omitempty" json:"recovery_instructions,omitempty"`
	FailedAttempts       []string       `yaml:"failed_attempts,omitempty" json:"failed_attempts,omitempty"`
	Blockers             []string       `yaml:"blockers,omitempty" json:"blockers,omitempty"`
	Invariants           []string       `yaml:"invariants,omitempty" json:"invariants,omitempty"`
	Overrides            []HaltOverride `yaml:"overrides,omitempty" json:"overrides,omitempty"`
	Extra                map[string]any `yaml:",inline" json:"-"`
}

// Artifact is a file the task produced or depends on.
type Artifact struct {
	Path        string `yaml:"path" json:"path"`
	Kind        string `yaml:"kind" json:"kind"`
	Description string `yaml:"description" json:"description"`
}

// TaskDecision is a decision recorded in the task state.
type TaskDecision struct {
	Decision string `yaml:"decision" json:"decision"`
	Reason   string `yaml:"reason" json:"reason"`
}

// LastAction is the most recent major action.
type LastAction struct {
	Timestamp string `yaml:"timestamp" json:"timestamp"`
	Type      string `yaml:"type" json:"type"`
	Summary   string `yaml:"summary" json:"summary"`
	Outcome   string `yaml:"outcome" json:"outcome"`
}

// HaltOverride records an explicit override of a context-limit halt.
type HaltOverride struct {
	At     string `yaml:"at" json:"at"`
	Reason string `yaml:"reason" json:"reason"`
}
