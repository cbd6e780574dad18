package spec_test

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/ctxgit/ctxgit/spec"
)

// SPEC §11.1: which config values are weaker than the defaults, read
// from YAML as a committed file says them.
func TestWeakenings(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		keys       []string
	}{
		{"empty", "version: 1\n", nil},
		{"the defaults written out", "retention:\n  keep: 50\n  max_idle_days: 30\n  max_sessions: 500\nlock:\n  timeout: 10s\npaths:\n  plan: .active-plan.md\n", nil},
		{"protection added", "snapshot:\n  secret_excludes: [\".ENV*\", \"*.pem\", \"*.key\", \"id_rsa*\", \"id_dsa*\", \"id_ecdsa*\", \"id_ed25519*\", \"*.p12\", \"*.pfx\", \"*.jks\", \"*.keystore\", \".netrc\", \"_netrc\", \".git-credentials\", \".npmrc\", \".pypirc\", \".pgpass\", \".htpasswd\", \".vault-token\", \"*.tfstate\", \"*.tfstate.backup\", \"**/.aws/credentials\", \"**/.docker/config.json\", \"**/.kube/config\", \"**/.config/gcloud/\", \"credentials.json\", \"*.secret\"]\n" +
			"  excludes: [\"build/\", \"!build/keep\"]\nretention:\n  keep: 51\n  max_idle_days: 0\n  max_sessions: 0\nlock:\n  timeout: 1m\n", nil},
		{"secret patterns emptied", "snapshot:\n  secret_excludes: []\n", []string{"snapshot.secret_excludes"}},
		{"secret patterns null", "snapshot:\n  secret_excludes:\n", []string{"snapshot.secret_excludes"}},
		{"secret patterns shortened", "snapshot:\n  secret_excludes: [\".env*\"]\n", []string{"snapshot.secret_excludes"}},
		{"a negation", "snapshot:\n  secret_excludes: [\".env*\", \"*.pem\", \"*.key\", \"id_rsa*\", \"id_dsa*\", \"id_ecdsa*\", \"id_ed25519*\", \"*.p12\", \"*.pfx\", \"*.jks\", \"*.keystore\", \".netrc\", \"_netrc\", \".git-credentials\", \".npmrc\", \".pypirc\", \".pgpass\", \".htpasswd\", \".vault-token\", \"*.tfstate\", \"*.tfstate.backup\", \"**/.aws/credentials\", \"**/.docker/config.json\", \"**/.kube/config\", \"**/.config/gcloud/\", \"credentials.json\", \"!.env.local\"]\n", []string{"snapshot.secret_excludes"}},
		{"retention limits", "retention:\n  keep: 1\n  max_idle_days: 1\n  max_sessions: 499\n", []string{"retention.keep", "retention.max_idle_days", "retention.max_sessions"}},
		{"a lock timeout over a minute", "lock:\n  timeout: 61s\n", []string{"lock.timeout"}},
		{"state paths moved", "paths:\n  plan: PLAN.md\n  failure_log: .env\n  failure_log_fallback: f.md\n  decisions: d.md\n  task_state: .ctxgit/task-state.json\n  summaries: s\n  self_model: m.md\n  env_model: e.md\n",
			[]string{"paths.plan", "paths.failure_log", "paths.failure_log_fallback", "paths.decisions", "paths.task_state", "paths.summaries"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := spec.ParseConfig(configPath, []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			ws := cfg.Weakenings()
			var keys []string
			for _, w := range ws {
				keys = append(keys, w.Key)
				if w.Why == "" || w.Value == "" {
					t.Errorf("%s: value %q, why %q", w.Key, w.Value, w.Why)
				}
			}
			if !reflect.DeepEqual(keys, tc.keys) {
				t.Fatalf("weakenings %v, want %v", keys, tc.keys)
			}
			// Reset, the config holds the defaults there and nothing is
			// weaker; the other keys keep their values.
			reset := cfg
			reset.ResetWeakenings(ws)
			if left := reset.Weakenings(); len(left) != 0 {
				t.Errorf("after the reset: %v", left)
			}
			if reset.Paths.SelfModel != cfg.Paths.SelfModel || reset.Snapshot.Excludes == nil && cfg.Snapshot.Excludes != nil {
				t.Errorf("the reset changed keys it does not guard: %+v", reset)
			}
		})
	}
}

// SPEC §11.1: the token is the first 16 hex digits of the SHA-256 of
// `KEY: VALUE` lines, VALUE as JSON: computed here by hand for one case.
func TestAcceptToken(t *testing.T) {
	cfg, err := spec.ParseConfig(configPath, []byte("snapshot:\n  secret_excludes: []\nretention:\n  keep: 1\nlock:\n  timeout: 24h\npaths:\n  decisions: docs/decisions.md\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws := cfg.Weakenings()
	want := []spec.Weakening{
		{Key: "snapshot.secret_excludes", Value: `[]`},
		{Key: "retention.keep", Value: `1`},
		{Key: "lock.timeout", Value: `"24h0m0s"`},
		{Key: "paths.decisions", Value: `"docs/decisions.md"`},
	}
	for i := range ws {
		ws[i].Why = ""
	}
	if !reflect.DeepEqual(ws, want) {
		t.Fatalf("weakenings %+v", ws)
	}
	// printf 'snapshot.secret_excludes: []\nretention.keep: 1\nlock.timeout: "24h0m0s"\npaths.decisions: "docs/decisions.md"\n' | sha256sum
	if got := spec.AcceptToken(ws); got != "646452e2875d1805" {
		t.Errorf("token %s", got)
	}
	// JSON as written by hand: no HTML escapes.
	cfg, err = spec.ParseConfig(configPath, []byte("paths:\n  plan: \"a&b<c>.md\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ws := cfg.Weakenings(); len(ws) != 1 || ws[0].Value != `"a&b<c>.md"` {
		t.Errorf("weakenings %+v", ws)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(spec.AcceptToken(ws[:1])) || spec.AcceptToken(ws[:1]) == spec.AcceptToken(ws) {
		t.Error("a token does not name its values")
	}
}
