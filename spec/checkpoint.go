package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// Checkpoint schema identity (SPEC §8).
const (
	CheckpointSchema        = "ctxgit/checkpoint"
	CheckpointSchemaVersion = 1
)

// Triggers name what took a checkpoint. Others are allowed if they match
// TriggerRE, so hosts can add their own.
const (
	TriggerManual     = "manual"
	TriggerAuto80     = "auto-80pct"
	TriggerCompaction = "compaction"
	TriggerSessionEnd = "session-end"
	TriggerHalt       = "halt"
	TriggerRestore    = "pre-restore"
	// TriggerRestored is the checkpoint a restore ends with: the
	// workspace as the restore left it.
	TriggerRestored = "post-restore"
)

// TriggerText says what took a checkpoint in words, for a listing that
// has no message to show (docs/cli.md#log): "session started", "context
// high: automatic checkpoint". A trigger this list does not know is said
// with its dashes as spaces.
func TriggerText(trigger string) string {
	switch trigger {
	case TriggerManual:
		return "checkpoint taken by hand"
	case TriggerAuto80:
		return "context high: automatic checkpoint"
	case TriggerCompaction:
		return "context compacted"
	case TriggerSessionEnd:
		return "session ended"
	case TriggerHalt:
		return "halted at the context limit"
	case TriggerRestore:
		return "before a restore"
	case TriggerRestored:
		return "after a restore"
	case "session-start":
		return "session started"
	case "commit":
		return "before a git commit"
	case "":
		return "checkpoint"
	}
	return strings.ReplaceAll(trigger, "-", " ")
}

// TriggerRE is the form of a trigger name.
var TriggerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`) })

// Checkpoint is `.ctxgit/checkpoint.yaml` and the same file inside every
// checkpoint commit (SPEC §8). Field order is the YAML key order, kept stable
// so diffs between checkpoints are clean.
type Checkpoint struct {
	Schema        string   `yaml:"schema" json:"schema"`
	SchemaVersion int      `yaml:"schema_version" json:"schema_version"`
	Meta          Meta     `yaml:"meta" json:"meta"`
	Working       Working  `yaml:"working" json:"working"`
	Plan          PlanInfo `yaml:"plan" json:"plan"`
	Metacog       Metacog  `yaml:"metacog" json:"metacog"`
	// Task is the durable task state at the time of the checkpoint, when
	// the workspace has one (SPEC §12).
	Task      *TaskState      `yaml:"task,omitempty" json:"task,omitempty"`
	Decisions []DecisionRef   `yaml:"decisions" json:"decisions"`
	Resources Resources       `yaml:"resources" json:"resources"`
	Thread    Thread          `yaml:"thread" json:"thread"`
	OpenItems []string        `yaml:"open_items" json:"open_items"`
	Learnings []string        `yaml:"learnings" json:"learnings"`
	Snapshot  SnapshotSummary `yaml:"snapshot" json:"snapshot"`
}

// Meta identifies a checkpoint.
type Meta struct {
	CheckpointID       string     `yaml:"checkpoint_id" json:"checkpoint_id"`
	SessionKey         string     `yaml:"session_key" json:"session_key"`
	CreatedAt          time.Time  `yaml:"created_at" json:"created_at"`
	Trigger            string     `yaml:"trigger" json:"trigger"`
	CompactionCount    int        `yaml:"compaction_count" json:"compaction_count"`
	TokenUsage         TokenUsage `yaml:"token_usage" json:"token_usage"`
	PreviousCheckpoint string     `yaml:"previous_checkpoint" json:"previous_checkpoint"`
	// SessionBase is the commit id of the session's first checkpoint ("" in
	// the first itself), so "changed since the session began" costs one
	// lookup, not a walk of the chain.
	SessionBase string `yaml:"session_base" json:"session_base"`
	Host        string `yaml:"host" json:"host"`
	AgentID     string `yaml:"agent_id" json:"agent_id"`
	Message     Text   `yaml:"message,omitempty" json:"message,omitempty"`
	// Branch is the branch the workspace's HEAD named when the checkpoint
	// was taken ("" when detached or outside git), so a report can merge
	// the sessions that worked on one branch.
	Branch string `yaml:"branch,omitempty" json:"branch,omitempty"`
}

// TokenUsage is the context usage when the checkpoint was taken.
type TokenUsage struct {
	InputTokens   int64   `yaml:"input_tokens" json:"input_tokens"`
	ContextWindow int64   `yaml:"context_window" json:"context_window"`
	Utilization   float64 `yaml:"utilization" json:"utilization"`
	// Source is host, transcript, estimate, or "" when unknown.
	Source string `yaml:"source" json:"source"`
}

// Working is what the agent was doing.
type Working struct {
	Topic        Text   `yaml:"topic" json:"topic"`
	Status       string `yaml:"status" json:"status"` // in_progress | idle | waiting_for_user
	Interrupted  bool   `yaml:"interrupted" json:"interrupted"`
	LastToolCall string `yaml:"last_tool_call" json:"last_tool_call"`
	NextAction   Text   `yaml:"next_action" json:"next_action"`
}

// Working statuses.
const (
	WorkingInProgress    = "in_progress"
	WorkingIdle          = "idle"
	WorkingWaitingOnUser = "waiting_for_user"
)

// PlanInfo is the plan as of the checkpoint.
type PlanInfo struct {
	Source      string     `yaml:"source" json:"source"`
	Title       Text       `yaml:"title" json:"title"`
	Goal        Text       `yaml:"goal" json:"goal"`
	CurrentStep Text       `yaml:"current_step" json:"current_step"`
	Done        int        `yaml:"done" json:"done"`
	Total       int        `yaml:"total" json:"total"`
	Steps       []StepInfo `yaml:"steps" json:"steps"`
}

// StepInfo is one plan step's number and status, so diffs between
// checkpoints can show transitions.
type StepInfo struct {
	Number string     `yaml:"number" json:"number"`
	Name   string     `yaml:"name" json:"name"`
	Status StepStatus `yaml:"status" json:"status"`
}

// Metacog is the agent's self-knowledge as of the checkpoint.
type Metacog struct {
	LastFailure       Text   `yaml:"last_failure" json:"last_failure"`
	LastFailureType   string `yaml:"last_failure_type" json:"last_failure_type"`
	LastFailureAction string `yaml:"last_failure_action" json:"last_failure_action"`
	// LastToolFailure is the transcript's newest failing tool call when
	// the failure log does not have it yet (SPEC §8); nil otherwise.
	LastToolFailure    *ToolFailure `yaml:"last_tool_failure,omitempty" json:"last_tool_failure,omitempty"`
	FailureCount       int          `yaml:"failure_count" json:"failure_count"`
	PendingAssumptions []string     `yaml:"pending_assumptions" json:"pending_assumptions"`
	// SelfModelAge and EnvModelAge are the ages of the self-model and
	// env-model files, as Go durations rounded to seconds; "" when absent.
	SelfModelAge string `yaml:"self_model_age" json:"self_model_age"`
	EnvModelAge  string `yaml:"env_model_age" json:"env_model_age"`
}

// ToolFailure is a failing tool call as a checkpoint records it from the
// host's transcript (SPEC §8): one line of each, already cut.
type ToolFailure struct {
	Tool string `yaml:"tool" json:"tool"`
	// Target is the call's command (its first line) or path.
	Target string `yaml:"target" json:"target"`
	// ExitCode is the command's exit status, when the result gave one.
	ExitCode *int `yaml:"exit_code,omitempty" json:"exit_code,omitempty"`
	// Error is the result's first meaningful line, or "no output".
	Error string `yaml:"error" json:"error"`
	// At is when the result was written (RFC 3339 UTC), or "".
	At string `yaml:"at" json:"at"`
}

// NoOutput is a ToolFailure's Error when the failed call printed nothing.
const NoOutput = "no output"

// DecisionRef is a decision as a checkpoint records it.
type DecisionRef struct {
	ID   string `yaml:"id" json:"id"`
	What Text   `yaml:"what" json:"what"`
	// Why is the decision's reason, so a recovery can show it; omitted
	// when the log gives none.
	Why  Text   `yaml:"why,omitempty" json:"why,omitempty"`
	When string `yaml:"when" json:"when"`
}

// Resources are the files and tools of the session.
type Resources struct {
	FilesRead     []string `yaml:"files_read" json:"files_read"`
	FilesModified []string `yaml:"files_modified" json:"files_modified"`
	// ModifiedSincePrevious are the files of FilesModified written since
	// the previous checkpoint (SPEC §8.3), which the recovery block adds
	// to its changed files (SPEC §10.1).
	ModifiedSincePrevious []string     `yaml:"files_modified_since_previous,omitempty" json:"files_modified_since_previous,omitempty"`
	FilesChanged          []FileChange `yaml:"files_changed" json:"files_changed"`
	ChangedCount          int          `yaml:"files_changed_count" json:"files_changed_count"`
	SinceSession          []FileChange `yaml:"files_changed_since_session_start" json:"files_changed_since_session_start"`
	SinceCount            int          `yaml:"files_changed_since_session_start_count" json:"files_changed_since_session_start_count"`
	NewDecisions          []string     `yaml:"new_decisions" json:"new_decisions"`
	ToolsUsed             []string     `yaml:"tools_used" json:"tools_used"`
}

// FileChange is one path changed between two snapshots.
type FileChange struct {
	Path string `yaml:"path" json:"path"`
	// Status is A (added), M (modified), D (deleted) or R (renamed).
	Status string `yaml:"status" json:"status"`
	From   string `yaml:"from,omitempty" json:"from,omitempty"`
}

// Thread is the conversation's gist (SPEC §8.3).
type Thread struct {
	Summary      Text       `yaml:"summary" json:"summary"`
	KeyExchanges []Exchange `yaml:"key_exchanges" json:"key_exchanges"`
	// LatestPrompt is the user's latest instruction as written, cut to
	// LatestPromptChars; omitted when unknown.
	LatestPrompt Text `yaml:"latest_prompt,omitempty" json:"latest_prompt,omitempty"`
	// HostPlan is the newest state of the plan the agent keeps with its
	// host's own tool, as the transcript shows it (SPEC §8.3); nil when
	// the transcript has none.
	HostPlan *HostPlan `yaml:"host_plan,omitempty" json:"host_plan,omitempty"`
}

// LatestPromptChars caps Thread.LatestPrompt (SPEC §8.3).
const LatestPromptChars = 1000

// HostPlan is a host's own plan: Claude Code's TodoWrite list or task
// tools, Codex's update_plan, Gemini CLI's write_todos.
type HostPlan struct {
	Tool  string         `yaml:"tool" json:"tool"`
	Steps []HostPlanStep `yaml:"steps" json:"steps"`
}

// HostPlanStep is one step of a host plan.
type HostPlanStep struct {
	Text   Text   `yaml:"text" json:"text"`
	Status string `yaml:"status" json:"status"` // pending, in_progress, done or cancelled
}

// Host plan step statuses.
const (
	HostStepPending    = "pending"
	HostStepInProgress = "in_progress"
	HostStepDone       = "done"
	HostStepCancelled  = "cancelled"
)

// Progress counts the steps done of those not cancelled.
func (p *HostPlan) Progress() (done, total int) {
	for _, s := range p.Steps {
		switch s.Status {
		case HostStepCancelled:
			continue
		case HostStepDone:
			done++
		}
		total++
	}
	return done, total
}

// Current is the step in progress, else the first pending one; nil when
// every step is done or cancelled.
func (p *HostPlan) Current() *HostPlanStep {
	for i := range p.Steps {
		if p.Steps[i].Status == HostStepInProgress {
			return &p.Steps[i]
		}
	}
	for i := range p.Steps {
		if p.Steps[i].Status == HostStepPending {
			return &p.Steps[i]
		}
	}
	return nil
}

// Exchange is one remembered message.
type Exchange struct {
	Role string `yaml:"role" json:"role"`
	Gist Text   `yaml:"gist" json:"gist"`
}

// SnapshotSummary reports what the workspace snapshot left out.
type SnapshotSummary struct {
	Tree     string         `yaml:"tree" json:"tree"`
	Files    int            `yaml:"files" json:"files"`
	Bytes    int64          `yaml:"bytes" json:"bytes"`
	Excluded map[string]int `yaml:"excluded_by_rule,omitempty" json:"excluded_by_rule,omitempty"`
	TooLarge []string       `yaml:"too_large,omitempty" json:"too_large,omitempty"`
	Nested   []string       `yaml:"nested_repositories,omitempty" json:"nested_repositories,omitempty"`
}

// Text is free text; it is written as a YAML literal block scalar when it
// spans lines, so diffs stay line-oriented (SPEC §8.2).
type Text string

// MarshalYAML writes multi-line text as a literal block.
func (t Text) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(t)}
	// Multi-line text is a literal block (leading spaces get an
	// indentation indicator), except where a literal block cannot hold it.
	if strings.ContainsRune(string(t), '\n') {
		n.Style = yaml.LiteralStyle
		if strings.HasPrefix(string(t), "\n") {
			// A literal block loses a leading blank line, and left
			// unstyled yaml.v3 would still choose one.
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	return n, nil
}

// checkpointIDRE is the form of a checkpoint id (SPEC §8.1).
var checkpointIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cp_([0-9]{3,})$`) })

// FormatCheckpointID returns "cp_NNN" for a 1-based sequence number.
func FormatCheckpointID(seq int) string { return fmt.Sprintf("cp_%03d", seq) }

// ParseCheckpointID returns the sequence number of "cp_NNN".
func ParseCheckpointID(id string) (int, bool) {
	m := checkpointIDRE().FindStringSubmatch(id)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// MarshalCheckpoint renders the YAML with 2-space indentation.
func MarshalCheckpoint(c *Checkpoint) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ParseCheckpoint reads and validates checkpoint YAML.
func ParseCheckpoint(path string, src []byte) (*Checkpoint, error) {
	if err := checkText(path, src); err != nil {
		return nil, err
	}
	var c Checkpoint
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, InvalidAt(path, 0, "empty checkpoint")
		}
		return nil, yamlError(path, err)
	}
	if err := c.Validate(path); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks the schema identity and the meta section.
func (c *Checkpoint) Validate(path string) error {
	switch {
	case c.Schema != CheckpointSchema:
		return InvalidAt(path, 0, "schema is %q, want %q", c.Schema, CheckpointSchema)
	case c.SchemaVersion != CheckpointSchemaVersion:
		return InvalidAt(path, 0, "schema_version %d is not supported (this ctxgit reads %d)", c.SchemaVersion, CheckpointSchemaVersion)
	}
	if _, ok := ParseCheckpointID(c.Meta.CheckpointID); !ok {
		return InvalidAt(path, 0, "meta.checkpoint_id %q is not of the form cp_NNN", c.Meta.CheckpointID)
	}
	if ValidateSessionKey(c.Meta.SessionKey) != nil {
		return InvalidAt(path, 0, "meta.session_key %q is not a valid session key", c.Meta.SessionKey)
	}
	if c.Meta.CreatedAt.IsZero() {
		return InvalidAt(path, 0, "meta.created_at is missing")
	}
	if !TriggerRE().MatchString(c.Meta.Trigger) {
		return InvalidAt(path, 0, "meta.trigger %q is not a trigger name", c.Meta.Trigger)
	}
	if u := c.Meta.TokenUsage.Utilization; u < 0 || u > 10 {
		return InvalidAt(path, 0, "meta.token_usage.utilization %v is out of range", u)
	}
	return nil
}
