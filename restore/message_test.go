package restore

import "testing"

// docs/cli.md#restore: the safety checkpoint's subject says what is
// restored: the checkpoint by short id and the paths that fit in 60
// characters (the commit's subject), the rest counted; the session's
// title, and every path when not all fit, go to the body.
func TestRestoreMessage(t *testing.T) {
	for _, tc := range []struct {
		label, title string
		scope        []string
		want         string
	}{
		{"default:cp_001", "", nil, "before restoring default:cp_001 (whole snapshot)"},
		{"7f3c2a10:cp_001", "parse plans", []string{"a.txt"}, "before restoring 7f3c2a10:cp_001: a.txt\n\nsession “parse plans”"},
		{"7f3c2a10:cp_001", "parse plans", nil, "before restoring 7f3c2a10:cp_001 (whole snapshot)\n\nsession “parse plans”"},
		{"7f3c2a10:cp_001", "", []string{"a.txt", "b.txt"}, "before restoring 7f3c2a10:cp_001: a.txt, b.txt"},
		{"7f3c2a10:cp_001", "a title far longer than sixty characters in all, which the body cuts", []string{"alpha/one.go", "alpha/two.go", "c", "d", "e", "f"},
			"before restoring 7f3c2a10:cp_001: alpha/one.go and 5 more\n\nsession “a title far longer than sixty characters in all, which the…”\npaths: alpha/one.go, alpha/two.go, c, d, e, f"},
		{"default:cp_002", "", []string{"x\x00y"}, "before restoring default:cp_002: xy"},
	} {
		if got := restoreMessage(tc.label, tc.title, tc.scope); got != tc.want {
			t.Errorf("restoreMessage(%q, %q, %q) = %q, want %q", tc.label, tc.title, tc.scope, got, tc.want)
		}
	}
}
