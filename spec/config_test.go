package spec_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ctxgit/ctxgit/spec"
)

const configPath = ".ctxgit/config.yaml"

// sameConfig compares two configs as the YAML they write, so a list left
// nil and one read as [] are the same.
func sameConfig(t *testing.T, got, want spec.Config) bool {
	t.Helper()
	g, err := yaml.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := yaml.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(g, w)
}

// SPEC §11: an empty file, and a file of comments, are the defaults.
func TestParseConfigDefaults(t *testing.T) {
	for _, src := range []string{"", "\n", "# nothing\n", "version: 1\n", "---\n"} {
		cfg, err := spec.ParseConfig(configPath, []byte(src))
		if err != nil {
			t.Errorf("ParseConfig(%q): %v", src, err)
			continue
		}
		if !reflect.DeepEqual(cfg, spec.DefaultConfig()) {
			t.Errorf("ParseConfig(%q) = %+v, want the defaults", src, cfg)
		}
	}
	d := spec.DefaultConfig()
	if d.BudgetChars() != 2000 || d.Caps != (spec.CapsConfig{Decisions: 50, Exchanges: 8, Tools: 100, Files: 100}) ||
		time.Duration(d.Recovery.MaxAge) != 10*time.Minute || d.Snapshot.MaxFileSize != 10<<20 ||
		d.Pressure.Warning != 0.55 || d.Pressure.Compress != 0.70 || d.Pressure.Critical != 0.85 {
		t.Errorf("DefaultConfig() does not hold the defaults of SPEC §11: %+v", d)
	}
}

// SPEC §11: every key overrides its default.
func TestParseConfigEveryKey(t *testing.T) {
	src := `version: 1
paths:
  plan: docs/plan.md
  failure_log: state/failures.md
  failure_log_fallback: skills/f.md
  decisions: state/decisions.md
  task_state: state/task.json
  summaries: state/summaries
  self_model: m/self.md
  env_model: m/env.md
snapshot:
  max_file_size: 512 KB
  secret_excludes: ["*.secret"]
  excludes: [node_modules/, "*.bin"]
recovery:
  budget_chars: 3000
  budget_tokens: 600
  max_age: 1h30m
  changed_files: 3
  compaction_warn: 5
  onboarding: false
caps:
  decisions: 10
  exchanges: 4
  tools: 20
  files: 30
pressure:
  warning: 0.5
  compress: 0.6
  critical: 0.9
  flush: 0.61
  auto_checkpoint: 0.75
  gauge_from: 0.65
  min_growth: 0.1
  nudge_stale: 90s
lock:
  timeout: 3s
  stale_after: 5m
checkpoint:
  author_name: Agent Smith
  author_email: agent@example.com
retention:
  keep: 5
  max_idle_days: 7
  max_sessions: 20
`
	want := spec.Config{
		Version: 1,
		Paths: spec.PathsConfig{Plan: "docs/plan.md", FailureLog: "state/failures.md", FailureLogFallback: "skills/f.md",
			Decisions: "state/decisions.md", TaskState: "state/task.json", Summaries: "state/summaries",
			SelfModel: "m/self.md", EnvModel: "m/env.md"},
		Snapshot: spec.SnapshotConfig{MaxFileSize: 512000, SecretExcludes: []string{"*.secret"}, Excludes: []string{"node_modules/", "*.bin"}},
		Recovery: spec.RecoveryConfig{BudgetChars: 3000, BudgetTokens: 600, MaxAge: spec.Duration(90 * time.Minute), ChangedFiles: 3, CompactionWarn: 5, Onboarding: false},
		Caps:     spec.CapsConfig{Decisions: 10, Exchanges: 4, Tools: 20, Files: 30},
		Pressure: spec.PressureConfig{Warning: 0.5, Compress: 0.6, Critical: 0.9, Flush: 0.61, AutoCheckpoint: 0.75,
			GaugeFrom: 0.65, MinGrowth: 0.1, NudgeStale: spec.Duration(90 * time.Second)},
		Lock:       spec.LockConfig{Timeout: spec.Duration(3 * time.Second), StaleAfter: spec.Duration(5 * time.Minute)},
		Checkpoint: spec.CheckpointConfig{AuthorName: "Agent Smith", AuthorEmail: "agent@example.com"},
		Retention:  spec.RetentionConfig{Keep: 5, MaxIdleDays: 7, MaxSessions: 20},
	}
	got, err := spec.ParseConfig(configPath, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseConfig:\n got %+v\nwant %+v", got, want)
	}
	// SPEC §10.2: budget_tokens > 0 wins, at 4 characters a token.
	if got.BudgetChars() != 2400 {
		t.Errorf("BudgetChars() = %d, want 2400", got.BudgetChars())
	}
	// A key left out keeps its default while its neighbours change.
	got, err = spec.ParseConfig(configPath, []byte("caps:\n  files: 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Caps.Files != 7 || got.Caps.Decisions != 50 || got.Recovery.BudgetChars != 2000 {
		t.Errorf("partial caps: %+v", got)
	}
}

// SPEC §11: every error is exit 3 and names the file, and the line where
// the YAML decoder knows it; range errors name the key.
func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // prefix or part of the message
	}{
		{"unknown key", "version: 1\nrecovery:\n  budget: 5\n", configPath + `:3: unknown key "budget" in recovery`},
		{"unknown top-level key", "verison: 1\n", configPath + `:1: unknown key "verison" in the top level`},
		{"bad YAML", "version: 1\n  bad: [\n", configPath + ":2: "},
		{"tab indentation", "caps:\n\tfiles: 1\n", configPath + ":2: "},
		{"wrong type int", "version: 1\ncaps:\n  files: x\n", configPath + ":3: cannot unmarshal"},
		{"wrong type float", "pressure:\n  warning: high\n", configPath + ":2: cannot unmarshal"},
		{"wrong type list", "snapshot:\n  excludes: node_modules\n", configPath + ":2: cannot unmarshal"},
		{"wrong type section", "caps: 5\n", configPath + ":1: cannot unmarshal"},
		{"version 2", "version: 2\n", configPath + ":1: version 2 is not supported (this ctxgit reads version 1)"},
		{"version 0", "version: 0\n", "version 0 is not supported"},
		{"warning below 0", "pressure:\n  warning: -0.1\n", configPath + ":2: pressure.warning must be between 0 and 1"},
		{"critical above 1", "pressure:\n  critical: 1.5\n", "pressure.critical must be between 0 and 1"},
		{"flush above 1", "pressure:\n  flush: 2\n", "pressure.flush must be between 0 and 1"},
		{"min_growth below 0", "pressure:\n  min_growth: -1\n", "pressure.min_growth must be between 0 and 1"},
		{"thresholds do not rise", "pressure:\n  warning: 0.9\n", "pressure thresholds must rise: warning 0.9 <= compress 0.7 <= critical 0.85"},
		{"compress above critical", "pressure:\n  compress: 0.9\n", "pressure thresholds must rise"},
		{"budget too small", fmt.Sprintf("recovery:\n  budget_chars: %d\n", spec.MinBudgetChars-1),
			fmt.Sprintf("recovery.budget_chars must be at least %d, got %d", spec.MinBudgetChars, spec.MinBudgetChars-1)},
		{"token budget too small", fmt.Sprintf("recovery:\n  budget_tokens: %d\n", spec.MinBudgetChars/4-1),
			fmt.Sprintf("recovery.budget_tokens must be 0 or at least %d, got %d", spec.MinBudgetChars/4, spec.MinBudgetChars/4-1)},
		{"negative budget tokens", "recovery:\n  budget_tokens: -1\n", "recovery.budget_tokens must be 0 or at least 125, got -1"},
		{"negative cap", "caps:\n  decisions: -1\n", "caps.decisions must not be negative"},
		{"negative changed files", "recovery:\n  changed_files: -2\n", "recovery.changed_files must not be negative"},
		{"path up", "paths:\n  plan: ../x\n", configPath + `:2: paths.plan: "../x" must not contain ".." elements`},
		{"path inside up", "paths:\n  decisions: a/../../x\n", `paths.decisions: "a/../../x" must not contain ".." elements`},
		{"absolute path", "paths:\n  plan: /abs/plan.md\n", `paths.plan: "/abs/plan.md" must be relative and slash-separated`},
		{"backslash path", "paths:\n  plan: 'a\\b.md'\n", "must be relative and slash-separated"},
		{"empty path", "paths:\n  task_state: ''\n", "paths.task_state: empty path"},
		{"dot element", "paths:\n  summaries: ./s\n", `must not contain "." elements`},
		{"empty element", "paths:\n  env_model: a//b\n", `must not contain "" elements`},
		{"trailing slash", "paths:\n  summaries: s/\n", `must not contain "" elements`},
		{".git element", "paths:\n  self_model: .git/x\n", `must not contain ".git" elements`},
		{"machine-local path", "paths:\n  failure_log: .ctxgit/local/f.md\n", "is inside .ctxgit/local"},
		{"machine-local dir", "paths:\n  summaries: .ctxgit/local\n", "is inside .ctxgit/local"},
		{"max_age zero", "recovery:\n  max_age: 0s\n", configPath + ":2: recovery.max_age must be positive, got 0s"},
		{"stale_after zero", "lock:\n  stale_after: 0s\n", configPath + ":2: lock.stale_after must be at least 1s, got 0s"},
		{"author with brackets", "checkpoint:\n  author_name: Eve <x>\n", configPath + ":2: checkpoint.author_name must be non-empty, with no '<', '>' or newline"},
		{"email with newline", "checkpoint:\n  author_email: \"a\\nb\"\n", configPath + ":2: checkpoint.author_email must be non-empty"},
		{"empty author", "checkpoint:\n  author_name: ''\n", configPath + ":2: checkpoint.author_name must be non-empty"},
		// SPEC §14: retention keeps at least the newest checkpoint.
		{"keep zero", "retention:\n  keep: 0\n", configPath + ":2: retention.keep must be at least 1 (a session's newest checkpoint is never pruned), got 0"},
		{"negative idle days", "retention:\n  max_idle_days: -1\n", configPath + ":2: retention.max_idle_days must not be negative"},
		{"negative max sessions", "retention:\n  max_sessions: -3\n", configPath + ":2: retention.max_sessions must not be negative"},
		{"unknown retention key", "retention:\n  keep_days: 3\n", configPath + `:2: unknown key "keep_days" in retention`},
		{"bad duration", "recovery:\n  max_age: soon\n", configPath + `:2: want a duration such as 10m or 90s, got "soon"`},
		{"duration without unit", "lock:\n  timeout: 5\n", "want a duration"},
		{"negative duration", "lock:\n  stale_after: -1s\n", "want a duration"},
		{"bad size", "snapshot:\n  max_file_size: 10XB\n", `want a size such as 10MiB or 1048576, got "10XB"`},
		{"negative size", "snapshot:\n  max_file_size: -1\n", "want a size"},
		{"fractional size", "snapshot:\n  max_file_size: 1.5MiB\n", "want a size"},
		{"NUL byte", "version: 1\ncaps:\x00\n", configPath + ":2: binary file (NUL byte)"},
		{"invalid UTF-8", "version: 1\n\n# \xff\n", configPath + ":3: invalid UTF-8"},
	} {
		cfg, err := spec.ParseConfig(configPath, []byte(tc.src))
		if err == nil {
			t.Errorf("%s: ParseConfig(%q) = nil error", tc.name, tc.src)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, configPath) || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to start with %s and hold %q", tc.name, msg, configPath, tc.want)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error spans lines: %q", tc.name, msg)
		}
		var fe *spec.FileError
		if !errors.Is(err, spec.ErrInvalid) || !errors.As(err, &fe) || spec.ExitCode(err) != spec.ExitInvalid {
			t.Errorf("%s: %v is not an invalid-file error (exit %d)", tc.name, err, spec.ExitCode(err))
		}
		// A failed parse never hands back half a config.
		if !reflect.DeepEqual(cfg, spec.DefaultConfig()) {
			t.Errorf("%s: a failed parse returned %+v, not the defaults", tc.name, cfg)
		}
	}
}

// SPEC §11: range rules that are not errors.
func TestParseConfigAccepted(t *testing.T) {
	for _, src := range []string{
		// budget_tokens makes a small budget_chars irrelevant.
		fmt.Sprintf("recovery:\n  budget_chars: 50\n  budget_tokens: %d\n", spec.MinBudgetChars/4),
		fmt.Sprintf("recovery:\n  budget_chars: %d\n", spec.MinBudgetChars),
		"pressure:\n  warning: 0.7\n  compress: 0.7\n  critical: 0.7\n", // equal thresholds still rise
		"pressure:\n  warning: 0\n  compress: 0\n  critical: 1\n  flush: 1\n",
		"caps:\n  decisions: 0\n  files: 0\n",
		"snapshot:\n  max_file_size: 0\n  secret_excludes: []\n",
		"paths:\n  plan: .ctxgit/plan.md\n", // inside .ctxgit/ but not .ctxgit/local
		"paths:\n  plan: .ctxgit/localfile.md\n",
		"paths:\n  plan: docs/ünïcode plan.md\n",
		"lock:\n  timeout: 0s\n",
	} {
		if _, err := spec.ParseConfig(configPath, []byte(src)); err != nil {
			t.Errorf("ParseConfig(%q): %v", src, err)
		}
	}
}

// SPEC §11: the types size and duration.
func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want spec.ByteSize
		ok   bool
	}{
		{"0", 0, true},
		{"1048576", 1 << 20, true},
		{"10MiB", 10 << 20, true},
		{"10 MiB", 10 << 20, true},
		{" 3KiB ", 3 << 10, true},
		{"2GiB", 2 << 30, true},
		{"512KB", 512000, true},
		{"5MB", 5000000, true},
		{"1GB", 1000000000, true},
		{"42B", 42, true},
		{"", 0, false},
		{"MiB", 0, false},
		{"10XB", 0, false},
		{"10mib", 0, false},
		{"-1", 0, false},
		{"1.5MiB", 0, false},
		{"10 M", 0, false},
		{"99999999999GiB", 0, false}, // overflow
		{"0x10", 0, false},
	} {
		got, err := spec.ParseByteSize(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in   spec.ByteSize
		want string
	}{{0, "0"}, {10 << 20, "10MiB"}, {3 << 10, "3KiB"}, {1 << 30, "1GiB"}, {1536, "1536"}, {512000, "500KiB"}, {1000, "1000"}} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", int64(tc.in), got, tc.want)
		}
		back, err := spec.ParseByteSize(tc.want)
		if err != nil || back != tc.in {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", tc.want, back, err, tc.in)
		}
	}
}

// SPEC §11: durations read as Go duration text and write back as such.
func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"90s", 90 * time.Second}, {"10m", 10 * time.Minute}, {"1h30m", 90 * time.Minute}, {"2m0s", 2 * time.Minute}, {"0s", 0}} {
		cfg, err := spec.ParseConfig(configPath, []byte("lock:\n  timeout: "+tc.in+"\n"))
		if err != nil || time.Duration(cfg.Lock.Timeout) != tc.want {
			t.Errorf("lock.timeout %s = %v, %v; want %v", tc.in, time.Duration(cfg.Lock.Timeout), err, tc.want)
		}
	}
	out, err := yaml.Marshal(struct {
		D spec.Duration `yaml:"d"`
	}{spec.Duration(2 * time.Minute)})
	if err != nil || string(out) != "d: 2m0s\n" {
		t.Errorf("Duration marshals as %q, %v", out, err)
	}
}

// SPEC §11: the config file `ctxgit init` writes parses to exactly the
// defaults.
func TestConfigTemplateIsDefault(t *testing.T) {
	src, err := os.ReadFile("../templates/init/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := spec.ParseConfig(configPath, src)
	if err != nil {
		t.Fatal(err)
	}
	if !sameConfig(t, cfg, spec.DefaultConfig()) {
		t.Errorf("templates/init/config.yaml parses to %+v, not DefaultConfig()", cfg)
	}
}

// SPEC §11: the spec's example is the full default file: it parses to the
// defaults and names every key.
func TestConfigExampleIsFullDefault(t *testing.T) {
	src, err := os.ReadFile("examples/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := spec.ParseConfig(configPath, src)
	if err != nil {
		t.Fatal(err)
	}
	if !sameConfig(t, cfg, spec.DefaultConfig()) {
		t.Errorf("examples/config.yaml parses to %+v, not DefaultConfig()", cfg)
	}
	all, err := yaml.Marshal(spec.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want, got := yamlKeys(t, all), yamlKeys(t, src)
	// The secret list is shown commented out, so a workspace follows the
	// default list as it grows rather than freezing it at init.
	if !strings.Contains(string(src), "\n  # secret_excludes: [") {
		t.Error("examples/config.yaml does not show snapshot.secret_excludes")
	}
	got = append(got, "snapshot.secret_excludes")
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("examples/config.yaml has keys\n%v\nwant\n%v", got, want)
	}
}

// yamlKeys lists the dotted key paths of a YAML mapping, sorted.
func yamlKeys(t *testing.T, src []byte) []string {
	t.Helper()
	var root map[string]any
	if err := yaml.Unmarshal(src, &root); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			keys = append(keys, prefix+k)
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", root)
	sort.Strings(keys)
	return keys
}

// SPEC §11: the path rule on its own.
func TestCheckRelPath(t *testing.T) {
	for _, tc := range []struct {
		p  string
		ok bool
	}{
		{".active-plan.md", true}, {".ctxgit/decisions.md", true}, {"a/b/c.md", true}, {"a b.md", true},
		{"", false}, {"/x", false}, {"..", false}, {"../x", false}, {"a/..", false}, {".", false}, {"./x", false},
		{"a//b", false}, {"a/", false}, {"a\\b", false}, {".git", false}, {"a/.git/b", false},
		{".ctxgit/local", false}, {".ctxgit/local/x", false},
	} {
		if err := spec.CheckRelPath(tc.p); (err == nil) != tc.ok {
			t.Errorf("CheckRelPath(%q) = %v, want ok=%v", tc.p, err, tc.ok)
		}
	}
}

// SPEC §1: text files are UTF-8 without NUL; errors name the line.
func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"ok\n", ""},
		{"", ""},
		{"a\nb\n\x00", "f:3: binary file (NUL byte)"},
		{"a\n\xc3\x28\n", "f:2: invalid UTF-8"},
		{"\xff", "f:1: invalid UTF-8"},
	} {
		err := spec.CheckText("f", []byte(tc.src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckText(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// SPEC §11: any input parses or fails with an error naming the file; a
// config that parses survives writing and reading back.
func FuzzParseConfig(f *testing.F) {
	tmpl, _ := os.ReadFile("../templates/init/config.yaml")
	ex, _ := os.ReadFile("examples/config.yaml")
	for _, s := range []string{"", "version: 1\n", "caps:\n  files: x\n", "recovery:\n  budget: 5\n", "snapshot:\n  max_file_size: 10MiB\n",
		"pressure: {warning: 0.1, compress: 0.2, critical: 0.3}\n", "lock:\n  timeout: 1h\n", "paths:\n  plan: ../x\n", "&a [*a]", "!!binary x"} {
		f.Add([]byte(s))
	}
	f.Add(tmpl)
	f.Add(ex)
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := spec.ParseConfig(configPath, src)
		if err != nil {
			// SPEC §1, §11: one line naming the file, exit 3 (a quoted
			// multi-line value is folded onto the line).
			if !strings.HasPrefix(err.Error(), configPath) || strings.Contains(err.Error(), "\n") || spec.ExitCode(err) != spec.ExitInvalid {
				t.Fatalf("error %q: want one line naming %s, exit 3", err, configPath)
			}
			return
		}
		out, err := yaml.Marshal(cfg)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		back, err := spec.ParseConfig(configPath, out)
		if err != nil {
			t.Fatalf("a parsed config does not read back: %v\n%s", err, out)
		}
		if !sameConfig(t, back, cfg) {
			t.Fatalf("round trip changed the config:\n%s", out)
		}
	})
}
