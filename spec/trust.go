package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// AcceptConfigKey is the git config key, one value per accepted token,
// that lets settings of `.ctxgit/config.yaml` weaker than the defaults
// take effect (SPEC §11.1). git config, because no file a repository
// commits is one: a clone cannot plant it, where it can plant any file
// in the workspace, `.ctxgit/local/` included (`git add -f`).
const AcceptConfigKey = "ctxgit.acceptConfig"

// MaxLockTimeout is the longest lock.timeout a config may set without
// being accepted.
const MaxLockTimeout = time.Minute

// A Weakening is a config value that weakens the user's protection or
// destroys more of their history than the default (SPEC §11.1).
type Weakening struct {
	// Key is the dotted key: "snapshot.secret_excludes".
	Key string
	// Value is the value as JSON, as the token hashes it.
	Value string
	// Why says what the value would do, for a person.
	Why string
}

// guard is one key of SPEC §11.1: weaker says, of a config c against
// the defaults d, why its value is weaker ("" when it is not), and
// reset puts the default back.
type guard struct {
	key    string
	value  func(c *Config) any
	weaker func(c, d *Config) string
	reset  func(c, d *Config)
}

// guards are SPEC §11.1's table, in its order (the token's).
var guards = []guard{
	{"snapshot.secret_excludes",
		func(c *Config) any { return append([]string{}, c.Snapshot.SecretExcludes...) },
		func(c, d *Config) string { return weakerSecrets(c.Snapshot.SecretExcludes, d.Snapshot.SecretExcludes) },
		func(c, d *Config) { c.Snapshot.SecretExcludes = d.Snapshot.SecretExcludes }},
	limitGuard("keep", func(r *RetentionConfig) *int { return &r.Keep }, "prune would keep %s of each session, not %d", "checkpoint"),
	limitGuard("max_idle_days", func(r *RetentionConfig) *int { return &r.MaxIdleDays }, "prune would drop sessions idle %s, not %d", "day"),
	limitGuard("max_sessions", func(r *RetentionConfig) *int { return &r.MaxSessions }, "prune would keep %s, not %d", "session"),
	{"lock.timeout",
		func(c *Config) any { return time.Duration(c.Lock.Timeout).String() },
		func(c, d *Config) string {
			if time.Duration(c.Lock.Timeout) <= MaxLockTimeout {
				return ""
			}
			return fmt.Sprintf("a command would wait up to %s for the workspace lock, over %s", time.Duration(c.Lock.Timeout), MaxLockTimeout)
		},
		func(c, d *Config) { c.Lock.Timeout = d.Lock.Timeout }},
	pathGuard("plan", func(p *PathsConfig) *string { return &p.Plan }),
	pathGuard("failure_log", func(p *PathsConfig) *string { return &p.FailureLog }),
	pathGuard("failure_log_fallback", func(p *PathsConfig) *string { return &p.FailureLogFallback }),
	pathGuard("decisions", func(p *PathsConfig) *string { return &p.Decisions }),
	pathGuard("task_state", func(p *PathsConfig) *string { return &p.TaskState }),
	pathGuard("summaries", func(p *PathsConfig) *string { return &p.Summaries }),
}

// pathGuard guards a state path: any other than the default is a file of
// the user's that ctxgit would read into checkpoints and write to.
func pathGuard(name string, field func(*PathsConfig) *string) guard {
	return guard{"paths." + name,
		func(c *Config) any { return *field(&c.Paths) },
		func(c, d *Config) string {
			if *field(&c.Paths) == *field(&d.Paths) {
				return ""
			}
			return fmt.Sprintf("ctxgit would read %q into checkpoints and write to it, not %q", *field(&c.Paths), *field(&d.Paths))
		},
		func(c, d *Config) { *field(&c.Paths) = *field(&d.Paths) }}
}

// limitGuard guards a retention limit: one set (0 is no limit) and
// under the default's drops history the default keeps. format takes the
// value as a count of noun, then the default.
func limitGuard(name string, field func(*RetentionConfig) *int, format, noun string) guard {
	return guard{"retention." + name,
		func(c *Config) any { return *field(&c.Retention) },
		func(c, d *Config) string {
			v, def := *field(&c.Retention), *field(&d.Retention)
			if v == 0 || v >= def {
				return ""
			}
			return fmt.Sprintf(format, Plural(v, noun), def)
		},
		func(c, d *Config) { *field(&c.Retention) = *field(&d.Retention) }}
}

// weakerSecrets says why a secret pattern list is weaker than the
// default: a default pattern missing (compared ignoring ASCII case, as
// they match), or a negation, which takes a file back out of the list.
func weakerSecrets(list, defaults []string) string {
	have := map[string]bool{}
	var why []string
	for _, p := range list {
		have[strings.ToLower(p)] = true
		if strings.HasPrefix(p, "!") {
			why = append(why, fmt.Sprintf("re-includes %q", p))
		}
	}
	var missing []string
	for _, p := range defaults {
		if !have[strings.ToLower(p)] {
			missing = append(missing, fmt.Sprintf("%q", p))
		}
	}
	switch {
	case len(missing) == len(defaults):
		why = append([]string{"drops every default secret pattern"}, why...)
	case len(missing) == 1:
		why = append([]string{"drops the secret pattern " + missing[0]}, why...)
	case len(missing) > 0:
		why = append([]string{"drops the secret patterns " + strings.Join(missing, ", ")}, why...)
	}
	if len(why) == 0 {
		return ""
	}
	return strings.Join(why, "; ") + ": such files would go into checkpoints and pushes"
}

// Weakenings lists the values of c that SPEC §11.1 lets take effect only
// once accepted, in its table's order.
func (c *Config) Weakenings() []Weakening {
	d := DefaultConfig()
	var out []Weakening
	for _, g := range guards {
		why := g.weaker(c, &d)
		if why == "" {
			continue
		}
		out = append(out, Weakening{Key: g.key, Value: CompactJSON(g.value(c)), Why: why})
	}
	return out
}

// ResetWeakenings puts the default back for each of ws's keys.
func (c *Config) ResetWeakenings(ws []Weakening) {
	d := DefaultConfig()
	for _, w := range ws {
		for _, g := range guards {
			if g.key == w.Key {
				g.reset(c, &d)
			}
		}
	}
}

// AcceptToken is the token that accepts exactly ws (SPEC §11.1): the
// first 16 hex digits of the SHA-256 of a line `KEY: VALUE` for each.
func AcceptToken(ws []Weakening) string {
	h := sha256.New()
	for _, w := range ws {
		fmt.Fprintf(h, "%s: %s\n", w.Key, w.Value)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
