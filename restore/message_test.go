package restore

import "testing"

// docs/cli.md#restore: the safety checkpoint's message names the
// checkpoint by short id and the session's title; the scope stays on the
// first line (the commit's subject) when it fits in 60 characters, else
// it moves to the body.
func TestRestoreMessage(t *testing.T) {
	for _, tc := range []struct {
		label, title string
		scope        []string
		want         string
	}{
		{"default:cp_001", "", nil, "before restoring default:cp_001 (whole snapshot)"},
		{"7f3c2a10:cp_001", "parse plans", []string{"a.txt"}, "before restoring 7f3c2a10:cp_001 “parse plans”: a.txt"},
		{"7f3c2a10:cp_001", "parse plans", nil, "before restoring 7f3c2a10:cp_001 “parse plans”\n\n(whole snapshot)"},
		{"7f3c2a10:cp_001", "a title far longer than thirty characters in all", []string{"a", "b", "c", "d", "e", "f"},
			"before restoring 7f3c2a10:cp_001 “a title far longer than thirt…”\n\na, b, c, d, e and 1 more"},
		{"default:cp_002", "", []string{"x\x00y"}, "before restoring default:cp_002: xy"},
	} {
		if got := restoreMessage(tc.label, tc.title, tc.scope); got != tc.want {
			t.Errorf("restoreMessage(%q, %q, %q) = %q, want %q", tc.label, tc.title, tc.scope, got, tc.want)
		}
	}
}
