package taskstate

import (
	"unicode/utf8"

	"github.com/ctxgit/ctxgit/internal/safetext"
)

// oneLine renders untrusted text on one line (SPEC §10.1), as the
// recovery block does.
func oneLine(s string) string { return safetext.Line(s) }

func runes(s string) int { return utf8.RuneCountInString(s) }
