package review

import "testing"

// docs/design.md, "Diff and report": --stat is git's layout. The expected texts
// were printed by git 2.x `git diff --stat` for the same changes.
func TestRenderStat(t *testing.T) {
	long := "some/really/long/path/to/a/deeply/nested/directory/structure/here/numbers.txt"
	for _, tc := range []struct {
		name  string
		files []FileDiff
		want  string
	}{
		{
			name: "long name cut, graph scaled, binary added",
			files: []FileDiff{
				{Path: "mid.txt", Status: "A", Added: 61, Lines: LinesCounted},
				{Path: "small.txt", Status: "A", Added: 5, Lines: LinesCounted},
				{Path: long, Status: "A", Added: 300, Lines: LinesCounted},
				{Path: "z.bin", Status: "A", Lines: LinesBinary, NewSize: 50},
			},
			want: "" +
				" mid.txt                                            |  61 +++++\n" +
				" small.txt                                          |   5 +\n" +
				" .../nested/directory/structure/here/numbers.txt    | 300 +++++++++++++++++++++\n" +
				" z.bin                                              | Bin 0 -> 50 bytes\n" +
				" 4 files changed, 366 insertions(+)\n",
		},
		{
			name: "short names, counts aligned with Bin",
			files: []FileDiff{
				{Path: "mid.txt", Status: "M", Added: 40, Removed: 19, Lines: LinesCounted},
				{Path: "small.txt", Status: "M", Removed: 5, Lines: LinesCounted},
				{Path: "z.bin", Status: "M", Lines: LinesBinary, OldSize: 100, NewSize: 50},
			},
			want: "" +
				" mid.txt   |  59 ++++++++++++++++++++++++++++++++++++++++-------------------\n" +
				" small.txt |   5 -----\n" +
				" z.bin     | Bin 100 -> 50 bytes\n" +
				" 3 files changed, 40 insertions(+), 24 deletions(-)\n",
		},
		{
			name: "renames",
			files: []FileDiff{
				{Path: "b/x/f", From: "a/x/f", Status: "R", Lines: LinesCounted, sameContent: true},
				{Path: "deep/same", From: "same", Status: "R", Lines: LinesCounted, sameContent: true},
				{Path: "logo.png", From: "img.png", Status: "R", Lines: LinesBinary, OldSize: 9, NewSize: 9, sameContent: true},
			},
			want: "" +
				" {a => b}/x/f        |   0\n" +
				" same => deep/same   |   0\n" +
				" img.png => logo.png | Bin\n" +
				" 3 files changed, 0 insertions(+), 0 deletions(-)\n",
		},
		{
			name:  "too large to count",
			files: []FileDiff{{Path: "dump.sql", Status: "M", Lines: LinesTooLarge}},
			want: "" +
				" dump.sql | not counted (over 8 MiB)\n" +
				" 1 file changed, 0 insertions(+), 0 deletions(-)\n",
		},
		{name: "nothing", files: nil, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RenderStat(tc.files); got != tc.want {
				t.Errorf("RenderStat:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestRenameName(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"a/x/f", "b/x/f", "{a => b}/x/f"},
		{"same", "deep/same", "same => deep/same"},
		{"deep/one/file.go", "deep/two/file.go", "deep/{one => two}/file.go"},
		{"dir/a.txt", "dir/b.txt", "dir/{a.txt => b.txt}"},
		{"dir/f", "f", "dir/f => f"},
		{"a.txt", "moved.txt", "a.txt => moved.txt"},
	} {
		if got := renameName(tc.a, tc.b); got != tc.want {
			t.Errorf("renameName(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestStatSummary(t *testing.T) {
	for _, tc := range []struct {
		t    FileTotals
		want string
	}{
		{FileTotals{}, "0 files changed"},
		{FileTotals{1, 1, 0}, "1 file changed, 1 insertion(+)"},
		{FileTotals{2, 0, 3}, "2 files changed, 3 deletions(-)"},
		{FileTotals{2, 0, 0}, "2 files changed, 0 insertions(+), 0 deletions(-)"},
		{FileTotals{3, 2, 1}, "3 files changed, 2 insertions(+), 1 deletion(-)"},
	} {
		if got := StatSummary(tc.t); got != tc.want {
			t.Errorf("StatSummary(%+v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
