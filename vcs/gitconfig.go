package vcs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitConfig is a parsed git config file: "section.key" (and
// "section.subsection.key") to the last value set, with section and key
// names lower-cased as git compares them. It is the small part of git's
// format ctxgit reads (core and extensions keys); include directives are
// not followed.
type gitConfig map[string]string

// get returns a key's value, "" when unset.
func (c gitConfig) get(key string) string { return c[strings.ToLower(key)] }

// readGitConfig parses a git config file; a missing file is empty.
func readGitConfig(path string) (gitConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return gitConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	cfg, line, err := parseGitConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: malformed git config: %v", path, line, err)
	}
	return cfg, nil
}

// configFiles lists the config files git reads for a repository, the one
// whose value wins first: the repository's own config, then the global
// ones — $GIT_CONFIG_GLOBAL alone when it is set, else ~/.gitconfig before
// $XDG_CONFIG_HOME/git/config (git reads the XDG file first, so
// ~/.gitconfig overrides it). The system config is not read: its place
// differs by installation, and nothing ctxgit reads belongs there alone.
func configFiles(commonDir string) []string {
	var files []string
	if commonDir != "" {
		files = append(files, filepath.Join(commonDir, "config"))
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		if g != "" {
			files = append(files, g)
		}
		return files
	}
	home := gitHome()
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	if xdg := xdgConfigHome(home); xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	return files
}

// gitHome is the home directory git reads ~/.gitconfig from and expands
// ~ with: HOME when it is set, on Windows too (Git for Windows sets HOME
// from USERPROFILE only where it is unset: setup_windows_environment in
// compat/mingw.c), else the system's (os.UserHomeDir: USERPROFILE).
func gitHome() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// xdgConfigHome is $XDG_CONFIG_HOME, or ~/.config when it is unset.
func xdgConfigHome(home string) string {
	if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
		return xdg
	}
	if home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// lookupConfig is a key's value as git would see it for the repository at
// commonDir ("" for none): the first of configFiles that sets it. A file
// that cannot be read or parsed is passed over, as a missing one.
func lookupConfig(commonDir, key string) string {
	for _, f := range configFiles(commonDir) {
		cfg, err := readGitConfig(f)
		if err != nil {
			continue
		}
		if v := cfg.get(key); v != "" {
			return v
		}
	}
	return ""
}

// GitConfigAll is every value of a multi-valued key, as `git config
// --get-all` lists them for the repository at commonDir ("" for none):
// the repository's own config and the global ones (configFiles), each
// file's values in order, the global ones first. A file that cannot be
// read or parsed adds nothing.
func GitConfigAll(commonDir, key string) []string {
	key = strings.ToLower(key)
	files := configFiles(commonDir)
	var out []string
	for i := len(files) - 1; i >= 0; i-- {
		data, err := os.ReadFile(files[i])
		if err != nil {
			continue
		}
		var values []string
		if _, err := eachGitConfig(data, func(k, v string) {
			if k == key {
				values = append(values, v)
			}
		}); err == nil {
			out = append(out, values...)
		}
	}
	return out
}

// parseGitConfig reads git's config format: [section], [section "sub"],
// name = value, a bare name (true), quotes, backslash escapes, a trailing
// backslash continuing the line, and # or ; comments outside quotes.
func parseGitConfig(data []byte) (gitConfig, int, error) {
	cfg := gitConfig{}
	n, err := eachGitConfig(data, func(key, value string) { cfg[key] = value })
	if err != nil {
		return nil, n, err
	}
	return cfg, n, nil
}

// eachGitConfig calls set for every variable of a git config, in order,
// with its "section[.subsection].name" key (section and name lower-cased)
// and its value; it returns the number of lines read.
func eachGitConfig(data []byte, set func(key, value string)) (int, error) {
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, "\\") && !strings.HasSuffix(line, "\\\\") && sc.Scan() {
			n++
			line = line[:len(line)-1] + sc.Text()
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return n, errors.New("unterminated section header")
			}
			head := strings.TrimSpace(line[1:end])
			name, sub, hasSub := strings.Cut(head, " ")
			section = strings.ToLower(name)
			if hasSub {
				sub = strings.TrimSpace(sub)
				if len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' {
					return n, errors.New("malformed subsection")
				}
				section += "." + strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub[1:len(sub)-1])
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if section == "" {
			return n, errors.New("a variable outside any section")
		}
		key, raw, hasValue := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "" {
			return n, errors.New("a variable without a name")
		}
		value := "true"
		if hasValue {
			v, err := configValue(raw)
			if err != nil {
				return n, err
			}
			value = v
		}
		set(section+"."+key, value)
	}
	return n, sc.Err()
}

// configValue unquotes a value, dropping a trailing comment.
func configValue(raw string) (string, error) {
	var b strings.Builder
	quoted := false
	pendingSpace := ""
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			quoted = !quoted
			continue
		case !quoted && (c == '#' || c == ';'):
			i = len(raw)
			continue
		case c == '\\':
			i++
			if i == len(raw) {
				return "", errors.New("trailing backslash")
			}
			switch raw[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case '"', '\\':
				c = raw[i]
			default:
				return "", fmt.Errorf("unknown escape \\%c", raw[i])
			}
		case !quoted && (c == ' ' || c == '\t'):
			if b.Len() > 0 {
				pendingSpace += string(c)
			}
			continue
		}
		b.WriteString(pendingSpace)
		pendingSpace = ""
		b.WriteByte(c)
	}
	if quoted {
		return "", errors.New("unterminated quote")
	}
	return b.String(), nil
}
