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

// Config is `.ctxgit/config.yaml` (SPEC §11). Every key is optional; a
// missing key takes its default from DefaultConfig.
type Config struct {
	Version    int              `yaml:"version"`
	Paths      PathsConfig      `yaml:"paths"`
	Snapshot   SnapshotConfig   `yaml:"snapshot"`
	Recovery   RecoveryConfig   `yaml:"recovery"`
	Caps       CapsConfig       `yaml:"caps"`
	Pressure   PressureConfig   `yaml:"pressure"`
	Lock       LockConfig       `yaml:"lock"`
	Checkpoint CheckpointConfig `yaml:"checkpoint"`
	Retention  RetentionConfig  `yaml:"retention"`
}

// PathsConfig names the state files, relative to the workspace root.
type PathsConfig struct {
	Plan               string `yaml:"plan"`
	FailureLog         string `yaml:"failure_log"`
	FailureLogFallback string `yaml:"failure_log_fallback"`
	Decisions          string `yaml:"decisions"`
	TaskState          string `yaml:"task_state"`
	Summaries          string `yaml:"summaries"`
	SelfModel          string `yaml:"self_model"`
	EnvModel           string `yaml:"env_model"`
}

// SnapshotConfig governs what a checkpoint's workspace snapshot holds.
type SnapshotConfig struct {
	MaxFileSize ByteSize `yaml:"max_file_size"`
	// SecretExcludes are gitignore patterns never snapshotted, whatever the
	// user's ignore files say.
	SecretExcludes []string `yaml:"secret_excludes"`
	// Excludes are further gitignore patterns, e.g. large generated trees.
	Excludes []string `yaml:"excludes"`
}

// RecoveryConfig governs the recovery block (SPEC §10).
type RecoveryConfig struct {
	BudgetChars  int      `yaml:"budget_chars"`
	BudgetTokens int      `yaml:"budget_tokens"` // when > 0, overrides budget_chars at 4 chars a token
	MaxAge       Duration `yaml:"max_age"`
	ChangedFiles int      `yaml:"changed_files"`
	// CompactionWarn is the compaction count above which the block warns of
	// a compaction death spiral.
	CompactionWarn int `yaml:"compaction_warn"`
	// Onboarding gives a session's first start the card of docs/cli.md#hook:
	// where the state lives and the commands that keep it.
	Onboarding bool `yaml:"onboarding"`
}

// CapsConfig bounds the lists a checkpoint records.
type CapsConfig struct {
	Decisions int `yaml:"decisions"`
	Exchanges int `yaml:"exchanges"`
	Tools     int `yaml:"tools"`
	Files     int `yaml:"files"`
}

// PressureConfig holds the context-pressure thresholds, as fractions of the
// context window.
type PressureConfig struct {
	Warning        float64  `yaml:"warning"`
	Compress       float64  `yaml:"compress"`
	Critical       float64  `yaml:"critical"`
	Flush          float64  `yaml:"flush"`
	AutoCheckpoint float64  `yaml:"auto_checkpoint"`
	GaugeFrom      float64  `yaml:"gauge_from"`
	MinGrowth      float64  `yaml:"min_growth"`
	NudgeStale     Duration `yaml:"nudge_stale"`
}

// LockConfig governs the workspace lock.
type LockConfig struct {
	Timeout    Duration `yaml:"timeout"`
	StaleAfter Duration `yaml:"stale_after"`
}

// CheckpointConfig governs checkpoint identity.
type CheckpointConfig struct {
	AuthorName  string `yaml:"author_name"`
	AuthorEmail string `yaml:"author_email"`
}

// RetentionConfig governs `ctxgit prune` (SPEC §14).
type RetentionConfig struct {
	// Keep is how many of each session's newest checkpoints survive.
	Keep int `yaml:"keep"`
	// MaxIdleDays drops a session whose newest checkpoint is older than
	// this many days; 0 never drops a session for being idle.
	MaxIdleDays int `yaml:"max_idle_days"`
	// MaxSessions caps the sessions a workspace keeps, dropping the
	// longest idle first; 0 is no cap.
	MaxSessions int `yaml:"max_sessions"`
}

// MinBudgetChars is the smallest recovery budget: room for the header, the
// four required sections of ordinary length and the footer (SPEC §10.2).
const MinBudgetChars = 500

// DefaultSecretExcludes are the secret patterns of SPEC §9.3: private
// keys and key stores, and the credentials files of common tools, each
// where the tool keeps it (a workspace may be a home directory).
var DefaultSecretExcludes = []string{
	".env*", "*.pem", "*.key",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"*.p12", "*.pfx", "*.jks", "*.keystore",
	".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".htpasswd", ".vault-token",
	"*.tfstate", "*.tfstate.backup",
	"**/.aws/credentials", "**/.docker/config.json", "**/.kube/config", "**/.config/gcloud/",
	"credentials.json",
}

// DefaultConfig returns the configuration used for every key a config file
// leaves out.
func DefaultConfig() Config {
	return Config{
		Version: 1,
		Paths: PathsConfig{
			Plan:               DefaultPlan,
			FailureLog:         DefaultFailureLog,
			FailureLogFallback: FallbackFailureLog,
			Decisions:          DefaultDecisions,
			TaskState:          DefaultTaskState,
			Summaries:          DefaultSummaries,
			SelfModel:          DefaultSelfModel,
			EnvModel:           DefaultEnvModel,
		},
		Snapshot: SnapshotConfig{
			MaxFileSize:    10 << 20,
			SecretExcludes: append([]string(nil), DefaultSecretExcludes...),
		},
		Recovery: RecoveryConfig{
			BudgetChars:    2000,
			MaxAge:         Duration(10 * 60e9),
			ChangedFiles:   10,
			CompactionWarn: 3,
			Onboarding:     true,
		},
		Caps: CapsConfig{Decisions: 50, Exchanges: 8, Tools: 100, Files: 100},
		Pressure: PressureConfig{
			Warning: 0.55, Compress: 0.70, Critical: 0.85,
			Flush: 0.65, AutoCheckpoint: 0.80, GaugeFrom: 0.70, MinGrowth: 0.05,
			NudgeStale: Duration(30 * 60e9),
		},
		Lock: LockConfig{Timeout: Duration(10e9), StaleAfter: Duration(120e9)},
		Checkpoint: CheckpointConfig{
			AuthorName:  "ctxgit",
			AuthorEmail: "ctxgit@localhost",
		},
		Retention: RetentionConfig{Keep: 50, MaxIdleDays: 30, MaxSessions: 500},
	}
}

// ParseConfig reads config YAML over the defaults. Unknown keys are errors
// (a typo must not silently fall back to a default); every error names the
// file and, where it can, the line.
func ParseConfig(path string, src []byte) (Config, error) {
	cfg := DefaultConfig()
	if err := checkText(path, src); err != nil {
		return cfg, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return DefaultConfig(), yamlError(path, err)
	}
	if key, err := cfg.validate(); err != nil {
		var root yaml.Node
		yaml.Unmarshal(src, &root)
		return DefaultConfig(), InvalidAt(path, keyLine(&root, key), "%v", err)
	}
	return cfg, nil
}

// Validate checks ranges and consistency; path names the file in errors.
func (c *Config) Validate(path string) error {
	if _, err := c.validate(); err != nil {
		return InvalidAt(path, 0, "%v", err)
	}
	return nil
}

// validate returns the dotted key at fault ("pressure.warning") with the
// error, so the parser can point at its line.
func (c *Config) validate() (string, error) {
	if c.Version != 1 {
		return "version", fmt.Errorf("version %d is not supported (this ctxgit reads version 1)", c.Version)
	}
	// -0 (as "-.0" reads) is 0: kept negative it would print as -0 and
	// not read back the same.
	for _, v := range []*float64{&c.Pressure.Warning, &c.Pressure.Compress, &c.Pressure.Critical, &c.Pressure.Flush,
		&c.Pressure.AutoCheckpoint, &c.Pressure.GaugeFrom, &c.Pressure.MinGrowth} {
		if *v == 0 {
			*v = 0
		}
	}
	p := c.Pressure
	for _, f := range []struct {
		name string
		v    float64
	}{{"warning", p.Warning}, {"compress", p.Compress}, {"critical", p.Critical}, {"flush", p.Flush},
		{"auto_checkpoint", p.AutoCheckpoint}, {"gauge_from", p.GaugeFrom}, {"min_growth", p.MinGrowth}} {
		if f.v < 0 || f.v > 1 {
			return "pressure." + f.name, fmt.Errorf("pressure.%s must be between 0 and 1, got %v", f.name, f.v)
		}
	}
	if !(p.Warning <= p.Compress && p.Compress <= p.Critical) {
		return "pressure", fmt.Errorf("pressure thresholds must rise: warning %v <= compress %v <= critical %v", p.Warning, p.Compress, p.Critical)
	}
	if c.Recovery.BudgetChars < MinBudgetChars && c.Recovery.BudgetTokens == 0 {
		return "recovery.budget_chars", fmt.Errorf("recovery.budget_chars must be at least %d, got %d", MinBudgetChars, c.Recovery.BudgetChars)
	}
	if c.Recovery.BudgetTokens < 0 || (c.Recovery.BudgetTokens > 0 && c.Recovery.BudgetTokens*4 < MinBudgetChars) {
		return "recovery.budget_tokens", fmt.Errorf("recovery.budget_tokens must be 0 or at least %d, got %d", MinBudgetChars/4, c.Recovery.BudgetTokens)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"caps.decisions", c.Caps.Decisions}, {"caps.exchanges", c.Caps.Exchanges}, {"caps.tools", c.Caps.Tools}, {"caps.files", c.Caps.Files}, {"recovery.changed_files", c.Recovery.ChangedFiles}} {
		if f.v < 0 {
			return f.name, fmt.Errorf("%s must not be negative", f.name)
		}
	}
	if c.Lock.StaleAfter < Duration(time.Second) {
		return "lock.stale_after", fmt.Errorf("lock.stale_after must be at least 1s, got %s", time.Duration(c.Lock.StaleAfter))
	}
	if c.Recovery.MaxAge <= 0 {
		return "recovery.max_age", fmt.Errorf("recovery.max_age must be positive, got %s", time.Duration(c.Recovery.MaxAge))
	}
	if c.Retention.Keep < 1 {
		return "retention.keep", fmt.Errorf("retention.keep must be at least 1 (a session's newest checkpoint is never pruned), got %d", c.Retention.Keep)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"retention.max_idle_days", c.Retention.MaxIdleDays}, {"retention.max_sessions", c.Retention.MaxSessions}} {
		if f.v < 0 {
			return f.name, fmt.Errorf("%s must not be negative", f.name)
		}
	}
	for _, f := range []struct{ name, v string }{
		{"checkpoint.author_name", c.Checkpoint.AuthorName}, {"checkpoint.author_email", c.Checkpoint.AuthorEmail}} {
		// git's commit header: no angle brackets, newlines or NULs.
		if strings.TrimSpace(f.v) == "" || strings.ContainsAny(f.v, "<>\n\x00") {
			return f.name, fmt.Errorf("%s must be non-empty, with no '<', '>' or newline", f.name)
		}
	}
	for _, f := range []struct{ name, v string }{
		{"plan", c.Paths.Plan}, {"failure_log", c.Paths.FailureLog}, {"failure_log_fallback", c.Paths.FailureLogFallback},
		{"decisions", c.Paths.Decisions}, {"task_state", c.Paths.TaskState}, {"summaries", c.Paths.Summaries},
		{"self_model", c.Paths.SelfModel}, {"env_model", c.Paths.EnvModel}} {
		if err := CheckRelPath(f.v); err != nil {
			return "paths." + f.name, fmt.Errorf("paths.%s: %v", f.name, err)
		}
	}
	return "", nil
}

// KeyLine is the line of a dotted key ("paths.plan") in the YAML
// document src, or 0.
func KeyLine(src []byte, key string) int {
	var root yaml.Node
	yaml.Unmarshal(src, &root)
	return keyLine(&root, key)
}

// keyLine finds the line of a dotted key in a YAML document, or 0.
func keyLine(doc *yaml.Node, key string) int {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}

// BudgetChars is the recovery budget in characters.
func (c *Config) BudgetChars() int {
	if c.Recovery.BudgetTokens > 0 {
		return c.Recovery.BudgetTokens * 4
	}
	return c.Recovery.BudgetChars
}

// CheckRelPath refuses a configured path that could leave the workspace or
// land in ctxgit's machine-local directory.
func CheckRelPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\"):
		return fmt.Errorf("%q must be relative and slash-separated", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." || el == "." || el == "" || isDotGit(el) {
			return fmt.Errorf("%q must not contain %q elements", p, el)
		}
	}
	if p == LocalDir || strings.HasPrefix(p, LocalDir+"/") {
		return fmt.Errorf("%q is inside %s", p, LocalDir)
	}
	return nil
}

// isDotGit reports a ".git" in any letter case or NTFS spelling (trailing
// dots and spaces), a name git refuses in a tree.
func isDotGit(el string) bool {
	t := strings.ToLower(strings.TrimRight(el, " ."))
	return t == ".git" || t == "git~1"
}

// checkText refuses binary and non-UTF-8 input before a parser sees it.
func checkText(path string, src []byte) error {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return InvalidAt(path, 1+bytes.Count(src[:i], []byte("\n")), "binary file (NUL byte)")
	}
	if line := invalidUTF8Line(src); line > 0 {
		return InvalidAt(path, line, "invalid UTF-8")
	}
	return nil
}

// CheckText refuses a NUL byte or invalid UTF-8, naming the line.
func CheckText(path string, src []byte) error { return checkText(path, src) }

var (
	yamlLineRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	unknownKeyRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type spec\.(\w+)$`) })
	configSection = map[string]string{
		"Config": "the top level", "PathsConfig": "paths", "SnapshotConfig": "snapshot", "RecoveryConfig": "recovery",
		"CapsConfig": "caps", "PressureConfig": "pressure", "LockConfig": "lock", "CheckpointConfig": "checkpoint",
		"RetentionConfig": "retention",
	}
)

// yamlError turns yaml.v3's messages ("yaml: line 3: ...", TypeError lists)
// into one FileError line naming the first problem.
func yamlError(path string, err error) error {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	// yaml.v3 names Go types; say it in the file's own terms.
	if m := unknownKeyRE().FindStringSubmatch(msg); m != nil {
		where, ok := configSection[m[2]]
		if !ok {
			where = m[2]
		}
		msg = fmt.Sprintf("unknown key %q in %s", m[1], where)
	}
	// A message quoting a multi-line value stays one line.
	msg = strings.Join(strings.Fields(msg), " ")
	return InvalidAt(path, line, "%s", msg)
}

// YAMLError is yamlError for other packages' YAML files.
func YAMLError(path string, err error) error { return yamlError(path, err) }
