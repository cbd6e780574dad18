// Package gentranscript writes synthetic host transcripts for tests and
// benchmarks: shaped like real ones (the mix of lines of the real Claude
// Code session in shared/fixtures), of any size, from a seed. The
// transcript reader's benchmarks and the hook benchmarks of cmd/ctxgit
// share it, so both measure the same file.
package gentranscript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Usage is an assistant turn's usage as Claude Code writes it; MessageID
// is the message it came from.
type Usage struct {
	InputTokens, CacheCreationTokens, CacheReadTokens, OutputTokens int64
	MessageID                                                       string
}

// Claude writes a synthetic Claude Code transcript of about size bytes
// whose mix of lines follows the real one in shared/fixtures (by bytes:
// about half tool results, which carry their output twice, a third hook
// progress lines, the rest assistant blocks and prompts), with a
// compaction every compactEvery turns (0: never). It returns the usage
// a reader must report: the last assistant usage after the last compaction.
func Claude(w io.Writer, size int, compactEvery int, seed uint64) (last Usage, known bool) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<20)
	defer bw.Flush()
	written := 0
	uuid := 0
	parent := ""
	emit := func(v map[string]any) {
		uuid++
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", seed, uuid)
		v["parentUuid"] = parent
		v["uuid"] = id
		v["isSidechain"] = false
		v["userType"] = "external"
		v["cwd"] = "/home/dev/proj"
		v["sessionId"] = "4d5611e5-241a-462a-8d15-5122611a9569"
		v["version"] = "2.1.39"
		v["gitBranch"] = "main"
		v["timestamp"] = "2026-02-12T16:02:25.227Z"
		parent = id
		b, _ := json.Marshal(v)
		bw.Write(b)
		bw.WriteByte('\n')
		written += len(b) + 1
	}
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "the", "context", "window", "😀", "naïve", "\"quoted\"", "tab\there", "<tag>", "\\path", "\u001b[31mred\u001b[0m"}
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(8) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	tools := []string{"Read", "Edit", "Bash", "Grep", "Write", "Glob"}
	turn, msg := 0, 0
	for written < size {
		turn++
		if compactEvery > 0 && turn%compactEvery == 0 {
			emit(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "level": "info", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 170000}})
			emit(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "This session is being continued. " + text(2000)}})
			known = false
		}
		emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text(20 + rng.IntN(300))}})
		for step := 0; step < 1+rng.IntN(6) && written < size; step++ {
			msg++
			mid := fmt.Sprintf("msg_%016x%08d", seed, msg)
			u := Usage{InputTokens: 1 + rng.Int64N(5), CacheCreationTokens: rng.Int64N(20000), CacheReadTokens: rng.Int64N(150000), OutputTokens: 1 + rng.Int64N(900), MessageID: mid}
			usage := map[string]any{"input_tokens": u.InputTokens, "cache_creation_input_tokens": u.CacheCreationTokens, "cache_read_input_tokens": u.CacheReadTokens, "output_tokens": u.OutputTokens, "service_tier": "standard"}
			asst := func(block map[string]any) {
				emit(map[string]any{"type": "assistant", "requestId": "req_" + mid, "message": map[string]any{"model": "claude-opus-4-6", "id": mid, "type": "message", "role": "assistant", "content": []any{block}, "stop_reason": nil, "usage": usage}})
			}
			if rng.IntN(2) == 0 {
				asst(map[string]any{"type": "thinking", "thinking": text(100 + rng.IntN(400)), "signature": "sig"})
			}
			asst(map[string]any{"type": "text", "text": text(50 + rng.IntN(600))})
			tool := tools[rng.IntN(len(tools))]
			tid := fmt.Sprintf("toolu_%016x%08d", seed, msg)
			asst(map[string]any{"type": "tool_use", "id": tid, "name": tool, "input": map[string]any{"file_path": fmt.Sprintf("/home/dev/proj/pkg%d/file%d.go", rng.IntN(20), rng.IntN(50)), "command": "go test ./..."}})
			last, known = u, true
			for range 2 + rng.IntN(6) {
				emit(map[string]any{"type": "progress", "data": map[string]any{"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:" + tool, "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"}, "parentToolUseID": tid, "toolUseID": tid})
			}
			out := text(200 + rng.IntN(6000))
			emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": tid, "type": "tool_result", "content": out, "is_error": rng.IntN(10) == 0}}},
				"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}, "sourceToolAssistantUUID": parent})
		}
	}
	return last, known
}
