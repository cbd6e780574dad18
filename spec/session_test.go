package spec_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/spec"
	"github.com/ctxgit/ctxgit/vcs"
)

// SPEC §6.1: a key typed by a person is validated and refused, never
// rewritten; the error is a usage error (exit 2).
func TestValidateSessionKey(t *testing.T) {
	for _, tc := range []struct {
		key  string
		ok   bool
		want string // part of the error message
	}{
		{"default", true, ""},
		{"9f1c2a7e-4b1d-4c55-a0e1-3f2b8d9e6c10", true, ""},
		{"A", true, ""},
		{"0", true, ""},
		{"a.b_c-d", true, ""},
		{"a--b", true, ""},
		{"a.lock.x", true, ""},
		{strings.Repeat("k", 100), true, ""},
		// SPEC §6.1: git refuses a ref name ending in '.'.
		{"a.", false, "must not end in '.'"},
		{"", false, "empty"},
		{strings.Repeat("k", 101), false, "longer than 100"},
		{"../../x", false, "'..'"},
		{"a..b", false, "'..'"},
		{"..", false, "'..'"},
		{"x.lock", false, ".lock"},
		{"a.b.lock", false, ".lock"},
		{".hidden", false, "start with a letter or digit"},
		{"-lead", false, "start with a letter or digit"},
		{"_x", false, "start with a letter or digit"},
		{"Ωmega", false, "start with a letter or digit"},
		{"caf\u00e9", false, "only letters"},
		{"a/b", false, "only letters"},
		{"a b", false, "only letters"},
		{"a:b", false, "only letters"},
		{"a@{0}", false, "only letters"},
		{"a\x00b", false, "only letters"},
		{"a\nb", false, "only letters"},
	} {
		err := spec.ValidateSessionKey(tc.key)
		if tc.ok {
			if err != nil {
				t.Errorf("ValidateSessionKey(%q) = %v, want ok", tc.key, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("ValidateSessionKey(%q) = nil, want an error", tc.key)
			continue
		}
		if !errors.Is(err, spec.ErrUsage) || spec.ExitCode(err) != spec.ExitUsage {
			t.Errorf("ValidateSessionKey(%q) = %v: not a usage error (exit %d)", tc.key, err, spec.ExitCode(err))
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateSessionKey(%q) = %q, want it to mention %q", tc.key, err, tc.want)
		}
	}
}

// SPEC §6.2: host session ids are sanitized by the exact algorithm; the
// table of the spec, plus edge cases.
func TestSanitizeSessionKey(t *testing.T) {
	for _, tc := range []struct {
		id, want string
	}{
		// The examples of SPEC §6.2.
		{"9f1c2a7e-4b1d-4c55-a0e1-3f2b8d9e6c10", "9f1c2a7e-4b1d-4c55-a0e1-3f2b8d9e6c10"},
		{"../../x", "x-9bdbf20b56"},
		{"feat/login page", "feat-login-page-66ade8297c"},
		{"x.lock", "x-c7feff6d69"},
		{"a.", "a-246791dcee"},
		{"Ωmega", "mega-5d37680c43"},
		{"", "s-da39a3ee5e"},
		{strings.Repeat("a", 150), strings.Repeat("a", 89) + "-e43157aa2b"},
		// Valid ids pass unchanged.
		{"default", "default"},
		{"a--b", "a--b"},
		// Runs of '-' and '.' collapse; the ends are trimmed.
		{"..", "s-9d891e731f"},
		{"...", "s-6eae3a5b06"},
		{"a..b", "a.b-89cf32c348"},
		{"-lead", "lead-246b9686e3"},
		{"_x", "x-9a532fea85"},
		{"a/b", "a-b-3ec69c85a4"},
		// One trailing .lock is removed before the suffix is added.
		{"a.lock.lock", "a.lock-2170bd073b"},
	} {
		if got := spec.SanitizeSessionKey(tc.id); got != tc.want {
			t.Errorf("SanitizeSessionKey(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

// SPEC §6.2: two different ids that need rewriting never share a key, even
// when they rewrite to the same text.
func TestSanitizeSessionKeyDistinguishes(t *testing.T) {
	ids := []string{"a/b", "a b", "a:b", "a\x00b", "a//b", "a\\b", "../a/b"}
	seen := map[string]string{}
	for _, id := range ids {
		k := spec.SanitizeSessionKey(id)
		if prev, ok := seen[k]; ok {
			t.Errorf("ids %q and %q share the key %q", prev, id, k)
		}
		seen[k] = id
	}
}

// sessionInvariants are the properties of SPEC §6.2 and §7.1 that hold for
// every id: the key validates, fits, is stable, and its ref stays inside
// refs/ctxgit/ and passes git's ref-name rules.
func sessionInvariants(t *testing.T, id string) {
	t.Helper()
	key := spec.SanitizeSessionKey(id)
	if err := spec.ValidateSessionKey(key); err != nil {
		t.Fatalf("SanitizeSessionKey(%q) = %q, which does not validate: %v", id, key, err)
	}
	if len(key) > spec.MaxSessionKeyLen {
		t.Fatalf("SanitizeSessionKey(%q) = %q: %d bytes", id, key, len(key))
	}
	if again := spec.SanitizeSessionKey(key); again != key {
		t.Fatalf("SanitizeSessionKey is not stable: %q -> %q -> %q", id, key, again)
	}
	if spec.ValidateSessionKey(id) == nil && key != id {
		t.Fatalf("valid id %q was rewritten to %q", id, key)
	}
	for _, ns := range []string{"", spec.WorkspaceNamespace("", "services/api"), spec.WorkspaceNamespace("wt", "svc one/../x")} {
		ref := spec.SessionRef(ns, key)
		if !strings.HasPrefix(ref, spec.RefPrefix) || !strings.HasPrefix(ref, spec.SessionRefsPrefix(ns)) {
			t.Fatalf("SessionRef(%q, %q) = %q: outside %s", ns, key, ref, spec.SessionRefsPrefix(ns))
		}
		if strings.Contains(ref, "..") {
			t.Fatalf("SessionRef(%q, %q) = %q contains '..'", ns, key, ref)
		}
		if err := vcs.CheckRefName(ref); err != nil {
			t.Fatalf("SessionRef(%q, %q): %v", ns, key, err)
		}
	}
}

// SPEC §6.2, §7.1: the invariants on a table of hostile ids.
func TestSanitizeSessionKeyInvariants(t *testing.T) {
	for _, id := range []string{
		"", "../../x", "..", "/", "\\", ".lock", "x.lock", "-", "_", ".", "a.",
		strings.Repeat("a", 1000), strings.Repeat(".", 200), strings.Repeat("-._", 50) + "x",
		strings.Repeat("é", 80), "日本語のセッション", "\xff\xfe", "a\x00b", "refs/heads/main",
		"HEAD", "@{-1}", "a~1^2:x?*[", strings.Repeat("a", 89) + ".lock", strings.Repeat("a", 99) + "..b",
	} {
		sessionInvariants(t, id)
	}
}

// SPEC §7.1: the ref namespace of a workspace in a subdirectory or a
// linked worktree is one ref path component.
func TestSessionRef(t *testing.T) {
	for _, tc := range []struct {
		worktree, rel, key, want string
	}{
		{"", "", "default", "refs/ctxgit/sessions/default"},
		{"", ".", "default", "refs/ctxgit/sessions/default"},
		{"", "services/api", "default", "refs/ctxgit/ws/services-api-HASH/sessions/default"},
		{"", "svc one", "s1", "refs/ctxgit/ws/svc-one-6634921373/sessions/s1"},
		{"feature", "", "default", "refs/ctxgit/ws/worktree-feature/sessions/default"},
		{"feature", "api", "default", "refs/ctxgit/ws/worktree-feature-api/sessions/default"},
	} {
		ns := spec.WorkspaceNamespace(tc.worktree, tc.rel)
		if strings.Contains(tc.want, "HASH") {
			tc.want = strings.Replace(tc.want, "services-api-HASH", spec.SanitizeSessionKey("services/api"), 1)
		}
		if got := spec.SessionRef(ns, tc.key); got != tc.want {
			t.Errorf("SessionRef(WorkspaceNamespace(%q, %q), %q) = %q, want %q", tc.worktree, tc.rel, tc.key, got, tc.want)
		}
		if got := spec.SessionRefsPrefix(ns); !strings.HasPrefix(tc.want, got) || strings.Contains(strings.TrimPrefix(tc.want, got), "/") {
			t.Errorf("SessionRefsPrefix(%q) = %q does not directly hold %q", ns, got, tc.want)
		}
	}
}

// SPEC §6.2, §7.1: the invariants hold for any bytes.
func FuzzSanitizeSessionKey(f *testing.F) {
	for _, s := range []string{"", "default", "../../x", "x.lock", "Ωmega", "a..b", strings.Repeat("a", 150), "\xff", "a."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		sessionInvariants(t, id)
		if utf8.ValidString(id) {
			// WorkspaceNamespace makes any path one valid component.
			for _, ns := range []string{spec.WorkspaceNamespace("", id), spec.WorkspaceNamespace(id, id)} {
				if ns != "" && spec.ValidateSessionKey(ns) != nil {
					t.Fatalf("WorkspaceNamespace of %q = %q: not one valid component", id, ns)
				}
			}
		}
	})
}
