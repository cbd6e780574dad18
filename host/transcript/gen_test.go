package transcript

import (
	"io"

	"github.com/ctxgit/ctxgit/internal/gentranscript"
)

// genClaude writes a synthetic Claude Code transcript of about size bytes
// (gentranscript.Claude) and returns the usage Read must report: the last
// assistant usage after the last compaction.
func genClaude(w io.Writer, size int, compactEvery int, seed uint64) (Usage, bool) {
	u, known := gentranscript.Claude(w, size, compactEvery, seed)
	return Usage{InputTokens: u.InputTokens, CacheCreationTokens: u.CacheCreationTokens, CacheReadTokens: u.CacheReadTokens,
		OutputTokens: u.OutputTokens, MessageID: u.MessageID}, known
}
