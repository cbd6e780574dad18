package hostconfig

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	"github.com/ctxgit/ctxgit/internal/hookpath"
	"github.com/ctxgit/ctxgit/internal/regfile"
)

// Codex runs a project's hooks only when two records in its user config
// ($CODEX_HOME/config.toml, default ~/.codex) allow it (docs/HOSTS.md,
// "Hook trust"):
//
//   - the project is trusted: [projects."<folder>"] trust_level = "trusted"
//     (Codex loads a project's .codex/ layer, hooks.json included, only
//     then);
//   - each hook is trusted: [hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
//     trusted_hash = "sha256:…", written when the person trusts it in
//     /hooks. The hash covers the hook's definition, so a changed entry
//     needs trusting again; ctxgit does not compute it (Codex's
//     normalisation is internal: openai/codex#21615), so a recorded trust
//     is reported as recorded, not as matching.
//
// codexTrust is what doctor reads of those records for one workspace.
type codexTrust struct {
	Config         string   // the config.toml read
	ProjectTrusted bool     // a trusted entry for the workspace or a folder above it
	Entries        int      // ctxgit's entries in .codex/hooks.json
	Awaiting       []string // their events ("SessionStart") with no trust recorded
}

// maxCodexConfig bounds how much of Codex's config doctor reads.
const maxCodexConfig = 4 << 20

// codexConfigPath is Codex's user config: $CODEX_HOME/config.toml, else
// ~/.codex/config.toml.
func codexConfigPath(getenv func(string) string) string {
	home := hookpath.HostHome(getenv, "CODEX_HOME", ".codex")
	if home == "" {
		return ""
	}
	return filepath.Join(home, "config.toml")
}

// readCodexTrust reads the trust records for the workspace at root; ok is
// false when Codex's config exists but cannot be read.
func readCodexTrust(root string, getenv func(string) string) (codexTrust, bool) {
	t := codexTrust{Config: codexConfigPath(getenv)}
	if t.Config == "" {
		return t, false
	}
	var values map[string]string
	// User-level, maybe linked from a dotfiles folder: followed, but
	// opened without blocking and read whole within the bound (a cut
	// file would read as other records).
	data, err := regfile.ReadFileFollowing(t.Config, maxCodexConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No config: nothing trusted yet.
	case err != nil:
		return t, false
	default:
		values = tomlStrings(string(data))
	}
	// Windows names a folder in any case (Codex records c:\work where
	// the shell says C:\Work): there the keys are compared folded.
	fold := func(k string) string { return k }
	if runtime.GOOS == "windows" {
		fold = strings.ToLower
		folded := make(map[string]string, len(values))
		for k, v := range values {
			folded[fold(k)] = v
		}
		values = folded
	}
	value := func(parts ...string) string { return values[fold(tomlKey(parts...))] }
	for dir := root; ; dir = filepath.Dir(dir) {
		if value("projects", dir, "trust_level") == "trusted" {
			t.ProjectTrusted = true
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	rel := ".codex/hooks.json"
	data, _, existed, err := readConfig(filepath.Join(root, filepath.FromSlash(rel)), rel)
	if err != nil || !existed {
		return t, err == nil
	}
	doc, err := parse(data)
	if err != nil {
		return t, false
	}
	hooksJSON := filepath.Join(root, ".codex", "hooks.json")
	alt := hooksJSON
	if real, err := filepath.EvalSymlinks(hooksJSON); err == nil {
		alt = real
	}
	hooks := doc.get("hooks")
	if hooks == nil || hooks.kind != kObject {
		return t, true
	}
	for _, m := range hooks.members {
		if m.val.kind != kArray {
			continue
		}
		for g, group := range m.val.elems {
			inner := group.get("hooks")
			if inner == nil || inner.kind != kArray {
				continue
			}
			for h, e := range inner.elems {
				if !ownEntry(DefaultCommand, e) && !ownsAny(e) {
					continue
				}
				t.Entries++
				suffix := ":" + snakeCase(m.key) + ":" + strconv.Itoa(g) + ":" + strconv.Itoa(h)
				if value("hooks", "state", hooksJSON+suffix, "trusted_hash") == "" &&
					value("hooks", "state", alt+suffix, "trusted_hash") == "" {
					t.Awaiting = append(t.Awaiting, m.key)
				}
			}
		}
	}
	return t, true
}

// ownsAny reports whether a hook object runs `ctxgit hook codex …` with
// any program (a path, a quoted command).
func ownsAny(e *value) bool {
	c, ok := e.str("command")
	return ok && (strings.Contains(c, " hook codex ") || strings.HasSuffix(strings.TrimSpace(c), " codex post-tool-use") && ownsToolHook(c))
}

// snakeCase is Codex's key label of an event: SessionStart → session_start.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// tomlKey joins a key path as tomlStrings reports it.
func tomlKey(parts ...string) string { return strings.Join(parts, "\x00") }

// tomlStrings reads the string values of a TOML document, keyed by their
// full key path (tomlKey): enough of TOML for the tables and inline
// tables Codex writes its trust records in. Anything it does not follow
// (arrays, multi-line strings) is skipped, never misread as a string.
func tomlStrings(doc string) map[string]string {
	out := map[string]string{}
	var table []string
	lines := strings.Split(doc, "\n")
	for _, line := range lines {
		s := strings.TrimSpace(line)
		switch {
		case s == "" || s[0] == '#':
			continue
		case strings.HasPrefix(s, "[["):
			keys, _, ok := tomlDottedKey(strings.TrimPrefix(s, "[["))
			if ok {
				table = append([]string{"[]"}, keys...) // array tables: not read
			}
			continue
		case s[0] == '[':
			keys, rest, ok := tomlDottedKey(s[1:])
			rest = strings.TrimSpace(rest)
			if ok && strings.HasPrefix(rest, "]") {
				table = keys
			} else {
				table = []string{"[]"}
			}
			continue
		}
		keys, rest, ok := tomlDottedKey(s)
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasPrefix(rest, "=") {
			continue
		}
		tomlValue(out, append(append([]string(nil), table...), keys...), strings.TrimSpace(rest[1:]))
	}
	return out
}

// tomlValue records a string value, or the strings of an inline table.
func tomlValue(out map[string]string, path []string, s string) (rest string) {
	switch {
	case strings.HasPrefix(s, "{"):
		s = strings.TrimSpace(s[1:])
		for s != "" && s[0] != '}' {
			keys, r, ok := tomlDottedKey(s)
			r = strings.TrimSpace(r)
			if !ok || !strings.HasPrefix(r, "=") {
				return ""
			}
			s = strings.TrimSpace(tomlValue(out, append(append([]string(nil), path...), keys...), strings.TrimSpace(r[1:])))
			s = strings.TrimSpace(strings.TrimPrefix(s, ","))
		}
		return strings.TrimPrefix(s, "}")
	case strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "'"):
		if strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, "'''") {
			return ""
		}
		v, r, ok := tomlString(s)
		if ok {
			out[tomlKey(path...)] = v
		}
		return r
	}
	// A number, a boolean, a date or an array: up to the next separator.
	if i := strings.IndexAny(s, ",}"); i >= 0 && !strings.HasPrefix(s, "[") {
		return s[i:]
	}
	return ""
}

// tomlDottedKey reads a dotted key (bare, "basic" or 'literal' parts).
func tomlDottedKey(s string) (keys []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		var k string
		switch {
		case s == "":
			return nil, "", false
		case s[0] == '"' || s[0] == '\'':
			if k, s, ok = tomlString(s); !ok {
				return nil, "", false
			}
		default:
			i := 0
			for i < len(s) && (s[i] == '_' || s[i] == '-' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
				i++
			}
			if i == 0 {
				return nil, "", false
			}
			k, s = s[:i], s[i:]
		}
		keys = append(keys, k)
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, ".") {
			return keys, s, true
		}
		s = t[1:]
	}
}

// tomlString reads one basic ("…", with escapes) or literal ('…') string.
func tomlString(s string) (v, rest string, ok bool) {
	if s[0] == '\'' {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return s[1 : end+1], s[end+2:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			i++
			switch e := s[i]; e {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", "", false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil {
					return "", "", false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}
