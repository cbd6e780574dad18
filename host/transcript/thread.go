package transcript

import (
	"slices"
	"sort"
	"strings"

	"github.com/ctxgit/ctxgit/spec"
)

// threadBuilder extracts the thread without an LLM (SPEC §8.3): summary =
// first prompt (100 characters) + " ... " + last prompt (100 characters);
// key exchanges = the first prompt, every prompt that follows an assistant
// message longer than 500 characters, and the last two exchange pairs
// (prompt + the assistant reply after it), the newest max of them. The
// rule looks only at lengths and positions, never at words, so it works
// the same in every language.
//
// It keeps gists only, and of the prompts after long replies only the
// newest max (older ones could never survive the cap), so its memory is
// constant.
type threadBuilder struct {
	max int
	n   int // prompts with text so far

	first, last string // summary halves
	firstGist   string
	// latest is the newest prompt as written, cut to LatestPromptChars.
	latest string

	// The assistant message being read: its id (consecutive lines of one
	// Claude Code message share it), its length, and the start of its text.
	asstID   string
	asstLen  int
	asstText []byte

	long []exchange // prompts after long replies, the newest max
	prev turn
	cur  turn
}

type exchange struct {
	seq  int
	role string
	gist string
}

type turn struct {
	ok    bool
	seq   int
	gist  string
	reply string
}

// prompt records a user prompt.
func (t *threadBuilder) prompt(text string) {
	gist := oneLine(text, gistChars)
	if gist == "" {
		return
	}
	seq := t.n
	t.n++
	half := oneLine(text, summaryChars)
	if seq == 0 {
		t.first, t.firstGist = half, gist
	}
	t.last = half
	t.latest = latestPrompt(text)
	if t.asstLen > longReply {
		if len(t.long) >= t.max {
			t.long = append(t.long[:0], t.long[1:]...)
		}
		t.long = append(t.long, exchange{seq: seq, role: "user", gist: gist})
	}
	// The next prompt follows whatever the assistant says after this one.
	t.asstID, t.asstLen = "", 0
	t.asstText = t.asstText[:0]
	t.prev, t.cur = t.cur, turn{ok: true, seq: seq, gist: gist}
}

// assistant records (part of) an assistant message. id groups the lines of
// one message; "" makes every call a message of its own.
func (t *threadBuilder) assistant(id, text string) {
	if id == "" || id != t.asstID {
		t.asstID, t.asstLen = id, 0
		t.asstText = t.asstText[:0]
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	t.asstLen += runeCount(text)
	if room := prefixBytes - len(t.asstText); room > 0 {
		if len(t.asstText) > 0 {
			t.asstText = append(t.asstText, '\n')
		}
		t.asstText = append(t.asstText, prefix(text, room)...)
	}
	if t.cur.ok {
		t.cur.reply = oneLine(string(t.asstText), gistChars)
	}
}

// clone is a copy that shares nothing mutable with t.
func (t *threadBuilder) clone() *threadBuilder {
	c := *t
	c.asstText = slices.Clone(t.asstText)
	c.long = slices.Clone(t.long)
	return &c
}

func (t *threadBuilder) build() spec.Thread {
	var th spec.Thread
	if t.n == 0 {
		return th
	}
	th.LatestPrompt = spec.Text(t.latest)
	th.Summary = spec.Text(t.first)
	if t.n > 1 {
		th.Summary = spec.Text(t.first + " ... " + t.last)
	}
	all := []exchange{{seq: 0, role: "user", gist: t.firstGist}}
	all = append(all, t.long...)
	for _, p := range []turn{t.prev, t.cur} {
		if !p.ok {
			continue
		}
		all = append(all, exchange{seq: p.seq, role: "user", gist: p.gist})
		if p.reply != "" {
			all = append(all, exchange{seq: p.seq, role: "assistant", gist: p.reply})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].seq != all[j].seq {
			return all[i].seq < all[j].seq
		}
		return all[i].role == "user" && all[j].role != "user"
	})
	out := all[:0]
	for _, e := range all {
		if n := len(out); n > 0 && out[n-1].seq == e.seq && out[n-1].role == e.role {
			continue
		}
		out = append(out, e)
	}
	if len(out) > t.max {
		out = out[len(out)-t.max:]
	}
	for _, e := range out {
		th.KeyExchanges = append(th.KeyExchanges, spec.Exchange{Role: e.role, Gist: spec.Text(e.gist)})
	}
	return th
}

// latestPrompt keeps a prompt as the user wrote it, lines and all, cut to
// spec.LatestPromptChars characters ("…" marks a cut); only trailing
// whitespace and invalid UTF-8 go.
func latestPrompt(text string) string {
	text = strings.TrimSpace(strings.ToValidUTF8(prefix(text, 4*spec.LatestPromptChars+4), ""))
	if runeCount(text) <= spec.LatestPromptChars {
		return text
	}
	r := []rune(text)
	return strings.TrimRight(string(r[:spec.LatestPromptChars-1]), " \t\r\n") + "…"
}
