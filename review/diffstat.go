package review

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/internal/safetext"
)

// statWidth is the line width of RenderStat: git's own when its output is
// not a terminal. A fixed width keeps the output the same everywhere.
const statWidth = 80

// RenderStat renders files as `git diff --stat` does (docs/design.md, "Diff and
// report"): one line per file, `name | N +++--`, names and graph fitted into 80
// columns by git's rules, renames as `dir/{a => b}`, binary files as `Bin OLD
// -> NEW bytes`, and git's summary line.
func RenderStat(files []FileDiff) string {
	if len(files) == 0 {
		return ""
	}
	names := make([]string, len(files))
	maxLen, maxChange, numberWidth, binWidth := 0, 0, 0, 0
	for i, f := range files {
		names[i] = safetext.Path(f.Path)
		if f.From != "" {
			names[i] = renameName(safetext.Path(f.From), safetext.Path(f.Path))
		}
		maxLen = max(maxLen, width(names[i]))
		switch f.Lines {
		case LinesBinary:
			bw := 14 + decimalWidth(int(f.NewSize)) + decimalWidth(int(f.OldSize))
			binWidth = max(binWidth, bw)
			numberWidth = 3 // counts line up with "Bin"
		case LinesTooLarge:
			binWidth = max(binWidth, len(tooLargeStat)+4)
		default:
			maxChange = max(maxChange, f.Added+f.Removed)
		}
	}
	numberWidth = max(numberWidth, decimalWidth(maxChange))
	w := max(statWidth, 16+6+numberWidth)
	graphWidth := maxChange
	if maxChange+4 <= binWidth {
		graphWidth = binWidth - 4
	}
	nameWidth := maxLen
	if nameWidth+numberWidth+6+graphWidth > w {
		if graphWidth > w*3/8-numberWidth-6 {
			graphWidth = max(w*3/8-numberWidth-6, 6)
		}
		if nameWidth > w-numberWidth-6-graphWidth {
			nameWidth = w - numberWidth - 6 - graphWidth
		} else {
			graphWidth = w - numberWidth - 6 - nameWidth
		}
	}

	var b strings.Builder
	for i, f := range files {
		name, prefix := names[i], ""
		if nameWidth < width(name) {
			// Keep the end of a long name, from a slash if there is one.
			prefix = "..."
			keep := max(nameWidth-3, 0)
			r := []rune(name)
			name = string(r[len(r)-min(keep, len(r)):])
			if j := strings.IndexByte(name, '/'); j >= 0 {
				name = name[j:]
			}
		}
		pad := max(nameWidth-len(prefix)-width(name), 0)
		fmt.Fprintf(&b, " %s%s%s |", prefix, name, strings.Repeat(" ", pad))
		switch f.Lines {
		case LinesBinary:
			fmt.Fprintf(&b, " %*s", numberWidth, "Bin")
			if f.sameContent {
				b.WriteString("\n") // git: same content, no sizes
				continue
			}
			fmt.Fprintf(&b, " %d -> %d bytes\n", f.OldSize, f.NewSize)
			continue
		case LinesTooLarge:
			fmt.Fprintf(&b, " %s\n", tooLargeStat)
			continue
		}
		add, del := f.Added, f.Removed
		if graphWidth <= maxChange {
			total := scaleLinear(add+del, graphWidth, maxChange)
			if total < 2 && add > 0 && del > 0 {
				total = 2
			}
			if add < del {
				add = scaleLinear(add, graphWidth, maxChange)
				del = total - add
			} else {
				del = scaleLinear(del, graphWidth, maxChange)
				add = total - del
			}
		}
		fmt.Fprintf(&b, " %*d", numberWidth, f.Added+f.Removed)
		if f.Added+f.Removed > 0 {
			b.WriteString(" ")
		}
		b.WriteString(strings.Repeat("+", add) + strings.Repeat("-", del) + "\n")
	}
	b.WriteString(" " + StatSummary(Totals(files)) + "\n")
	return b.String()
}

// tooLargeStat stands where the counts would be for a file too large to
// line-diff.
var tooLargeStat = fmt.Sprintf("not counted (over %d MiB)", MaxLineDiffBytes>>20)

// scaleLinear is git's: at least one column for any change.
func scaleLinear(it, width, maxChange int) int {
	if it == 0 || maxChange == 0 {
		return 0
	}
	return 1 + it*(width-1)/maxChange
}

func decimalWidth(n int) int {
	w := 1
	for ; n >= 10; n /= 10 {
		w++
	}
	return w
}

func width(s string) int { return utf8.RuneCountInString(s) }

// renameName is git's pprint_rename: a common directory prefix and suffix
// are written once, "dir/{old => new}/rest"; otherwise "old => new".
func renameName(a, b string) string {
	pfx := 0
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '/' {
			pfx = i + 1
		}
	}
	at := func(s string, i int) byte {
		if i >= len(s) {
			return 0 // git walks from the terminating NUL
		}
		return s[i]
	}
	adjust := 0
	if pfx > 0 {
		adjust = 1 // the prefix's slash may also start the suffix
	}
	sfx := 0
	for ia, ib := len(a), len(b); ia >= pfx-adjust && ib >= pfx-adjust && ia >= 0 && ib >= 0 && at(a, ia) == at(b, ib); ia, ib = ia-1, ib-1 {
		if at(a, ia) == '/' {
			sfx = len(a) - ia
		}
	}
	amid := max(len(a)-pfx-sfx, 0)
	bmid := max(len(b)-pfx-sfx, 0)
	if pfx+sfx == 0 {
		return a + " => " + b
	}
	return a[:pfx] + "{" + a[pfx:pfx+amid] + " => " + b[pfx:pfx+bmid] + "}" + a[len(a)-sfx:]
}
