package spec

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// DefaultSession is the session key used when none is given (SPEC §6).
const DefaultSession = "default"

// MaxSessionKeyLen bounds a key so a ref path stays well inside any
// filesystem's name limit.
const MaxSessionKeyLen = 100

// RefPrefix is the namespace of every ref ctxgit writes (SPEC §7).
const RefPrefix = "refs/ctxgit/"

// SessionRefPrefix holds one ref per session.
const SessionRefPrefix = RefPrefix + "sessions/"

// ValidateSessionKey checks a key a person typed (--session, CTXGIT_SESSION).
// Such keys are refused, not rewritten, so a typo never silently lands in
// another session (SPEC §6.1).
func ValidateSessionKey(key string) error {
	switch {
	case key == "":
		return Usage("session key is empty")
	case len(key) > MaxSessionKeyLen:
		return Usage("session key %q: longer than %d characters", key, MaxSessionKeyLen)
	case strings.Contains(key, ".."):
		return Usage("session key %q: must not contain '..'", key)
	case strings.HasSuffix(key, ".lock"):
		return Usage("session key %q: must not end in .lock", key)
	case strings.HasSuffix(key, "."):
		return Usage("session key %q: must not end in '.'", key)
	case !isKeyStart(key[0]):
		return Usage("session key %q: must start with a letter or digit", key)
	}
	for i := 0; i < len(key); i++ {
		if !isKeyByte(key[i]) {
			return Usage("session key %q: only letters, digits, '.', '_' and '-' are allowed", key)
		}
	}
	return nil
}

// SanitizeSessionKey maps a host's session id (any bytes) onto a valid key
// (SPEC §6.2): disallowed bytes become '-', runs of '-' and '.' collapse, the
// ends are trimmed, and a key that was changed or is too long gets a short
// hash suffix so two different ids never share a session. An id with
// nothing usable in it becomes `s-` and its hash.
func SanitizeSessionKey(id string) string {
	if ValidateSessionKey(id) == nil {
		return id
	}
	var b strings.Builder
	prev := byte(0)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !isKeyByte(c) {
			c = '-'
		}
		if (c == '-' || c == '.') && (prev == '-' || prev == '.') {
			continue
		}
		b.WriteByte(c)
		prev = c
	}
	key := strings.Trim(b.String(), "-._")
	key = strings.TrimSuffix(key, ".lock")
	sum := sha1.Sum([]byte(id))
	suffix := "-" + hex.EncodeToString(sum[:])[:10]
	if max := MaxSessionKeyLen - len(suffix); len(key) > max {
		key = key[:max]
	}
	key = strings.TrimRight(key, "-._")
	if key == "" {
		key = "s"
	}
	return key + suffix
}

// SessionRef is the ref holding a session's checkpoint chain. The key must be
// valid; namespace is "" for a workspace at its repository's top level, else
// the sanitized workspace path inside the repository (SPEC §7).
func SessionRef(namespace, key string) string {
	if namespace == "" {
		return SessionRefPrefix + key
	}
	return RefPrefix + "ws/" + namespace + "/sessions/" + key
}

// SessionRefsPrefix is the prefix under which SessionRef places keys.
func SessionRefsPrefix(namespace string) string {
	if namespace == "" {
		return SessionRefPrefix
	}
	return RefPrefix + "ws/" + namespace + "/sessions/"
}

// WorkspaceNamespace names a workspace that is not a repository's main
// top level: worktree is the linked worktree's name ("" for the main
// worktree) and rel the workspace's slash-separated path inside the
// worktree ("" or "."). The result is one ref path component, sanitized as
// a host id (so a path never nests into another workspace's refs), or ""
// for the main worktree's top level.
func WorkspaceNamespace(worktree, rel string) string {
	if rel == "." {
		rel = ""
	}
	name := rel
	if worktree != "" {
		name = "worktree-" + worktree
		if rel != "" {
			name += "-" + rel
		}
	}
	if name == "" {
		return ""
	}
	return SanitizeSessionKey(name)
}

func isKeyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isKeyByte(c byte) bool {
	return isKeyStart(c) || c == '.' || c == '_' || c == '-'
}
