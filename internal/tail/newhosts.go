package tail

import "github.com/ctxgit/ctxgit/internal/jsonscan"

// The counters of the hosts issue 33 added (docs/HOSTS.md, "Transcripts").
var (
	// Qwen Code's assistant usageMetadata (Gemini's API shape): the
	// prompt's count includes the cached tokens.
	QwenKeys = Keys{Input: "promptTokenCount", CacheRead: "cachedContentTokenCount",
		Output: "candidatesTokenCount", ReadInInput: true}
	// GitHub Copilot CLI's session.usage_record usage: its input count
	// includes the cached tokens ("5.0k (2.0k cached)" for 5,000 with
	// 2,000 cached).
	CopilotKeys = Keys{Input: "inputTokens", CacheRead: "cacheReadTokens", Output: "outputTokens", ReadInInput: true}
)

// OpenCodeUsage reads an opencode assistant message's tokens: input
// excludes the cache, which it counts under cache.read and cache.write.
func OpenCodeUsage(tokens []byte) Usage {
	k := Keys{Input: "input", Output: "output"}
	u := k.Read(tokens)
	cache := jsonscan.Field(tokens, "cache")
	u.CacheReadTokens, _ = jsonscan.Num(jsonscan.Field(cache, "read"))
	u.CacheCreationTokens, _ = jsonscan.Num(jsonscan.Field(cache, "write"))
	return u
}

// qwenLine: a chat_compression record ends the search (the usage before
// it is stale, as the full reader has it); an assistant record with
// usageMetadata is the usage.
func qwenLine(line []byte) (Usage, bool, bool) {
	switch jsonscan.StrOr(jsonscan.Field(line, "type")) {
	case "system":
		return Usage{}, false, jsonscan.KeyIs(jsonscan.Field(line, "subtype"), "chat_compression")
	case "assistant":
		usage := jsonscan.Field(line, "usageMetadata")
		if usage == nil {
			return Usage{}, false, false
		}
		u := QwenKeys.Read(usage)
		u.MessageID = jsonscan.StrOr(jsonscan.Field(line, "uuid"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}

// CopilotUsage reads a session.usage_record line's data.usage: ok is
// false for a record of another interaction than the conversation's (a
// subagent's, a title's).
func CopilotUsage(u []byte) (Usage, bool) {
	if kind := jsonscan.StrOr(jsonscan.Field(u, "interactionType")); kind != "" && kind != "conversation-agent" {
		return Usage{}, false
	}
	usage := CopilotKeys.Read(u)
	usage.ContextWindow, _ = jsonscan.Num(jsonscan.Field(u, "maxPromptTokens"))
	return usage, true
}

// copilotLine: a compaction that was applied ends the search; a
// conversation usage record is the usage.
func copilotLine(line []byte) (Usage, bool, bool) {
	switch jsonscan.StrOr(jsonscan.Field(line, "type")) {
	case "session.compaction_complete":
		return Usage{}, false, jsonscan.IsTrue(jsonscan.Path(line, "data", "success"))
	case "session.usage_record":
		usage, ok := CopilotUsage(jsonscan.Path(line, "data", "usage"))
		if !ok {
			return Usage{}, false, false
		}
		usage.MessageID = jsonscan.StrOr(jsonscan.Field(line, "id"))
		return usage, usage.Used() > 0, false
	}
	return Usage{}, false, false
}

// opencodeLine: the user message a compaction starts with ends the
// search; an assistant message that is not the compaction's summary is
// the usage.
func opencodeLine(line []byte) (Usage, bool, bool) {
	info := jsonscan.Field(line, "info")
	switch jsonscan.StrOr(jsonscan.Field(info, "role")) {
	case "user":
		for p := range jsonscan.EachElement(jsonscan.Field(line, "parts")) {
			if jsonscan.KeyIs(jsonscan.Field(p, "type"), "compaction") {
				return Usage{}, false, true
			}
		}
	case "assistant":
		tokens := jsonscan.Field(info, "tokens")
		if tokens == nil || jsonscan.IsTrue(jsonscan.Field(info, "summary")) {
			return Usage{}, false, false
		}
		u := OpenCodeUsage(tokens)
		u.MessageID = jsonscan.StrOr(jsonscan.Field(info, "id"))
		return u, u.Used() > 0, false
	}
	return Usage{}, false, false
}
