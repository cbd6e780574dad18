package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRealSessions replays real sessions of hosts the repository does not
// hold (gathered by scripts/realsessions.sh into CTXGIT_REALSESSIONS, one
// directory per host: claude-code, codex, gemini, openclaw) through a
// simulated compaction at several points of each, and scores the block
// against what a separate, simple reading of the raw file says it must
// carry (docs/HOSTS.md, "Transcripts", "Real sessions"): the user's latest
// instruction as typed, the newest failing tool call, the files edited
// successfully; never a host's pseudo-prompt or a ctxgit file. Issue 23's
// goal is 95% of the checks of every host.
func TestRealSessions(t *testing.T) {
	dir := os.Getenv("CTXGIT_REALSESSIONS")
	if dir == "" {
		t.Skip("CTXGIT_REALSESSIONS is not set (scripts/realsessions.sh gathers the sessions)")
	}
	hosts := map[string]realHost{
		"claude-code": {compact: "pre-compact", deliver: "user-prompt-submit", truth: claudeTruth},
		"codex":       {compact: "pre-compact", deliver: "user-prompt-submit", truth: codexTruth},
		"gemini":      {compact: "pre-compress", deliver: "before-agent", truth: geminiTruth},
		"openclaw":    {compact: "compact-before", deliver: "bootstrap", truth: openclawTruth},
	}
	var report []string
	for _, host := range slices.Sorted(maps.Keys(hosts)) {
		files, _ := filepath.Glob(filepath.Join(dir, host, "*"))
		if len(files) == 0 {
			report = append(report, fmt.Sprintf("%s: no sessions", host))
			continue
		}
		var score realScore
		for _, f := range files {
			t.Run(host+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, cut := range realCuts(data) {
					score.add(checkRealCut(t, host, hosts[host], cut))
				}
			})
		}
		report = append(report, fmt.Sprintf("%s: %d sessions, %d cuts, %d of %d checks (%.1f%%; %d of a failing call, %d of an edited file)",
			host, len(files), score.cuts, score.passed, score.total, score.percent(), score.failing, score.edited))
		if score.total > 0 && score.percent() < 95 {
			t.Errorf("%s: %.1f%% of the checks hold, want at least 95%%", host, score.percent())
		}
	}
	t.Logf("real sessions:\n%s", strings.Join(report, "\n"))
}

// realHost is how a host's hooks are replayed and its ground truth read.
type realHost struct {
	compact, deliver string
	truth            func(data []byte) realTruth
}

// realTruth is what the raw transcript says the block must carry.
type realTruth struct {
	cwd         string
	instruction string // the newest prompt as the user typed it; "" when none
	failTool    string // the tool of the newest failing call; "" when none
	edited      []string
}

// realScore counts a host's cuts and checks; failing and edited count
// the checks of a failing call and of an edited file, so the report says
// what the score covers.
type realScore struct{ cuts, passed, total, failing, edited int }

func (s *realScore) add(o realScore) {
	s.cuts += o.cuts
	s.passed += o.passed
	s.total += o.total
	s.failing += o.failing
	s.edited += o.edited
}

func (s realScore) percent() float64 { return 100 * float64(s.passed) / float64(max(s.total, 1)) }

// realCuts are the transcript as it stood at five points: a JSON Lines
// file cut after a fifth, two fifths, … of its lines; a one-document
// Gemini CLI session with a fifth, … of its messages.
func realCuts(data []byte) [][]byte {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) == nil && doc["messages"] != nil {
		var msgs []json.RawMessage
		json.Unmarshal(doc["messages"], &msgs)
		var cuts [][]byte
		for _, n := range fifths(len(msgs)) {
			c := cloneDoc(doc)
			c["messages"], _ = json.Marshal(msgs[:n])
			b, _ := json.MarshalIndent(c, "", "  ")
			cuts = append(cuts, b)
		}
		return cuts
	}
	lines := bytes.SplitAfter(bytes.TrimRight(data, "\n"), []byte("\n"))
	var cuts [][]byte
	for _, n := range fifths(len(lines)) {
		cut := bytes.Join(lines[:n], nil)
		if !bytes.HasSuffix(cut, []byte("\n")) {
			cut = append(cut, '\n')
		}
		cuts = append(cuts, cut)
	}
	return cuts
}

func cloneDoc(m map[string]json.RawMessage) map[string]json.RawMessage { return maps.Clone(m) }

// fifths are the distinct counts n*k/5 for k = 1..5, none 0.
func fifths(n int) []int {
	var out []int
	for k := 1; k <= 5; k++ {
		if c := n * k / 5; c > 0 && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// checkRealCut replays one cut through a compaction and scores its block.
func checkRealCut(t *testing.T, host string, h realHost, data []byte) realScore {
	t.Helper()
	truth := h.truth(data)
	if truth.instruction == "" {
		return realScore{} // no prompt yet: nothing the block must carry
	}
	ws := initialised(t)
	if truth.cwd != "" {
		quoted, _ := json.Marshal(truth.cwd)
		ws2, _ := json.Marshal(ws)
		data = bytes.ReplaceAll(data, bytes.Trim(quoted, `"`), bytes.Trim(ws2, `"`))
	}
	ext := ".jsonl"
	if json.Valid(data) {
		ext = ".json" // Gemini CLI's one-document layout
	}
	tr := filepath.Join(t.TempDir(), "session"+ext)
	if err := os.WriteFile(tr, data, 0o644); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]string{"session_id": "real", "transcript_path": tr, "cwd": ws})
	compact, _ := json.Marshal(map[string]string{"session_id": "real", "transcript_path": tr, "cwd": ws, "trigger": "manual"})
	run(t, ws, host, h.compact, string(compact))
	out := run(t, ws, host, h.deliver, string(payload))
	block := out
	if host != "openclaw" {
		block = contextText(t, out)
	}
	s := realScore{cuts: 1}
	check := func(ok bool, what string) {
		s.total++
		if ok {
			s.passed++
			return
		}
		t.Logf("miss: %s\nblock:\n%s", what, block)
	}
	want := firstLine(truth.instruction)
	check(strings.Contains(block, "The user's latest instruction:\n> "+want), "latest instruction "+strconv.Quote(want))
	if truth.failTool != "" {
		s.failing++
		check(strings.Contains(block, "## Last failing tool call\n> "+truth.failTool), "failing call of "+truth.failTool)
	} else {
		check(!strings.Contains(block, "## Last failing tool call"), "no failing call")
	}
	var edited []string
	for _, f := range truth.edited {
		if f != "" && !path.IsAbs(f) && !strings.HasPrefix(f, "../") && !strings.HasPrefix(f, ".ctxgit/") && f != ".active-plan.md" {
			edited = append(edited, f)
		}
	}
	for i, f := range edited {
		s.edited++
		if i == 10 { // recovery.changed_files: the rest are counted
			check(strings.Contains(block, fmt.Sprintf("(%d in all)", len(edited))), fmt.Sprintf("%d edited files counted", len(edited)))
			break
		}
		check(strings.Contains(block, "\n- M "+f+"\n") || strings.Contains(block, "\n- A "+f+"\n"), "edited file "+f)
	}
	instr := block
	if i := strings.Index(block, "The user's latest instruction:\n"); i >= 0 {
		instr = block[i:]
	}
	check(!pseudoPrompt.MatchString(instr), "no pseudo-prompt")
	check(!strings.Contains(block, "- M .ctxgit/") && !strings.Contains(block, "- A .ctxgit/") && !strings.Contains(block, ".active-plan.md"), "no ctxgit file")
	return s
}

// pseudoPrompt matches text a host writes in the user's role.
var pseudoPrompt = regexp.MustCompile(`<command-(name|message|args)>|<local-command-|<system-reminder>|<environment_context>|<user_instructions>|<task-notification>|# AGENTS\.md instructions|# Context from my IDE setup|Caveat: The messages below`)

// firstLine is the first non-blank line of s, cut to 60 characters (the
// block quotes an instruction line by line, and cuts it at 600).
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			if r := []rune(l); len(r) > 60 {
				l = string(r[:60])
			}
			return l
		}
	}
	return ""
}

// jsonLines decodes each line of data that is a JSON object.
func jsonLines(data []byte) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func jstr(v any) string         { s, _ := v.(string); return s }
func jobj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func jlist(v any) []any         { l, _ := v.([]any); return l }

// relTo makes p relative to cwd when under it.
func relTo(cwd, p string) string {
	if cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return strings.TrimPrefix(p, cwd+"/")
	}
	if cwd != "" && !path.IsAbs(p) {
		return path.Clean(p)
	}
	return p
}

// edits collects successful writes: a write whose result failed is none;
// one without a result yet counts.
type edits struct {
	order   []string
	pending map[string][]string // call id → paths
	done    map[string]bool
}

func (e *edits) call(id string, paths ...string) {
	if e.pending == nil {
		e.pending, e.done = map[string][]string{}, map[string]bool{}
	}
	e.pending[id] = append(e.pending[id], paths...)
}

func (e *edits) result(id string, failed bool) {
	if !failed {
		for _, p := range e.pending[id] {
			e.add(p)
		}
	}
	delete(e.pending, id)
}

func (e *edits) add(p string) {
	if p != "" && !e.done[p] {
		e.done[p] = true
		e.order = append(e.order, p)
	}
}

func (e *edits) list() []string {
	ids := make([]string, 0, len(e.pending))
	for id := range e.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for _, p := range e.pending[id] {
			e.add(p)
		}
	}
	return e.order
}

// searchNoMatch: a search command's exit 1 found nothing.
var searchNoMatch = regexp.MustCompile(`(^|[;&|]\s*)(rg|grep|egrep|fgrep|ag|ack|git grep)\b[^;&|]*$`)

// claudeBuiltins are Claude Code's slash commands that carry no task
// (code.claude.com/docs/en/slash-commands).
var claudeBuiltins = map[string]bool{"clear": true, "compact": true, "model": true, "context": true, "cost": true, "help": true,
	"config": true, "mcp": true, "resume": true, "rewind": true, "status": true, "login": true, "logout": true, "memory": true,
	"permissions": true, "vim": true, "exit": true, "doctor": true, "hooks": true, "agents": true, "ide": true, "export": true,
	"release-notes": true, "add-dir": true, "bashes": true, "bug": true, "terminal-setup": true, "upgrade": true, "usage": true,
	"statusline": true, "output-style": true, "privacy-settings": true, "todos": true, "plugin": true}

var (
	commandName = regexp.MustCompile(`<command-name>/?([^<]*)</command-name>`)
	commandArgs = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
)

// claudeTruth reads a Claude Code transcript with encoding/json.
func claudeTruth(data []byte) realTruth {
	var tr realTruth
	var e edits
	names := map[string]string{}
	for _, l := range jsonLines(data) {
		if tr.cwd == "" {
			tr.cwd = jstr(l["cwd"])
		}
		if jstr(l["type"]) == "queue-operation" && jstr(l["operation"]) == "enqueue" {
			if c := jstr(l["content"]); c != "" && !strings.HasPrefix(strings.TrimSpace(c), "<") {
				tr.instruction = c
			}
			continue
		}
		msg := jobj(l["message"])
		switch jstr(l["type"]) {
		case "assistant":
			for _, b := range jlist(msg["content"]) {
				blk := jobj(b)
				if jstr(blk["type"]) != "tool_use" {
					continue
				}
				id, name, in := jstr(blk["id"]), jstr(blk["name"]), jobj(blk["input"])
				names[id] = name
				switch name {
				case "Write", "Edit", "MultiEdit":
					e.call(id, relTo(tr.cwd, jstr(in["file_path"])))
				case "NotebookEdit":
					e.call(id, relTo(tr.cwd, jstr(in["notebook_path"])))
				}
				if name == "Bash" && searchNoMatch.MatchString(strings.TrimSpace(jstr(in["command"]))) {
					names[id] = "search"
				}
			}
		case "user":
			var text []string
			results := false
			switch c := msg["content"].(type) {
			case string:
				text = append(text, c)
			case []any:
				for _, b := range c {
					blk := jobj(b)
					switch jstr(blk["type"]) {
					case "text":
						text = append(text, jstr(blk["text"]))
					case "tool_result":
						results = true
						id := jstr(blk["tool_use_id"])
						failed, _ := blk["is_error"].(bool)
						content := fmt.Sprint(blk["content"])
						e.result(id, failed)
						rejected := strings.HasPrefix(content, "The user doesn't want to")
						noMatch := names[id] == "search" && strings.HasPrefix(strings.TrimSpace(content), "Exit code 1")
						if failed && !rejected && !noMatch && l["isSidechain"] != true {
							tr.failTool = names[id]
							if tr.failTool == "search" {
								tr.failTool = "Bash"
							}
						}
					}
				}
			}
			if results || l["isMeta"] == true || l["isSidechain"] == true || l["isCompactSummary"] == true || l["isVisibleInTranscriptOnly"] == true {
				continue
			}
			if p := claudePrompt(strings.Join(text, "\n")); p != "" {
				tr.instruction = p
			}
		}
	}
	tr.edited = e.list()
	return tr
}

// claudePrompt is the user's words in a user line's text, "" when the
// host wrote it.
func claudePrompt(s string) string {
	s = strings.TrimSpace(s)
	if m := commandName.FindStringSubmatch(s); m != nil && (strings.HasPrefix(s, "<command-")) {
		if claudeBuiltins[m[1]] {
			return ""
		}
		out := "/" + m[1]
		if a := commandArgs.FindStringSubmatch(s); a != nil && strings.TrimSpace(a[1]) != "" {
			out += " " + strings.TrimSpace(a[1])
		}
		return out
	}
	for strings.HasPrefix(s, "<system-reminder>") {
		_, rest, ok := strings.Cut(s, "</system-reminder>")
		if !ok {
			return ""
		}
		s = strings.TrimSpace(rest)
	}
	if s == "" || strings.HasPrefix(s, "[Request interrupted") {
		return ""
	}
	for _, tag := range []string{"<task-notification>", "<local-command-", "<bash-", "<command-"} {
		if strings.HasPrefix(s, tag) {
			return ""
		}
	}
	return s
}

var (
	exitText  = regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:?) (-?\d+)`)
	patchFile = regexp.MustCompile(`(?m)^\*\*\* (?:Add|Update) File: (.+)$|^\*\*\* Move to: (.+)$`)
)

// codexTruth reads a Codex rollout with encoding/json.
func codexTruth(data []byte) realTruth {
	var tr realTruth
	var e edits
	type call struct{ name, cmd string }
	calls := map[string]call{}
	var itemPrompt string
	for _, l := range jsonLines(data) {
		p := jobj(l["payload"])
		switch jstr(l["type"]) {
		case "session_meta", "turn_context":
			if tr.cwd == "" {
				tr.cwd = jstr(p["cwd"])
			}
		case "event_msg":
			if jstr(p["type"]) == "user_message" {
				tr.instruction = codexRequest(jstr(p["message"]))
			}
		case "response_item":
			switch jstr(p["type"]) {
			case "message":
				if jstr(p["role"]) == "user" {
					var text []string
					for _, c := range jlist(p["content"]) {
						text = append(text, jstr(jobj(c)["text"]))
					}
					s := strings.TrimSpace(strings.Join(text, "\n"))
					if s != "" && !strings.HasPrefix(s, "<") && !strings.HasPrefix(s, "# AGENTS.md instructions") {
						itemPrompt = codexRequest(s)
					}
				}
			case "function_call", "custom_tool_call":
				id, name := jstr(p["call_id"]), jstr(p["name"])
				args := jstr(p["arguments"]) + jstr(p["input"])
				var a map[string]any
				json.Unmarshal([]byte(args), &a)
				cmd := jstr(a["cmd"])
				if argv := jlist(a["command"]); len(argv) > 0 {
					cmd = fmt.Sprint(argv[len(argv)-1])
				}
				calls[id] = call{name, cmd}
				if name == "apply_patch" || strings.Contains(args, "apply_patch") {
					for _, m := range patchFile.FindAllStringSubmatch(args+"\n"+cmd, -1) {
						f := m[1]
						if f == "" {
							f = m[2]
						}
						e.call(id, relTo(tr.cwd, strings.TrimSpace(f)))
					}
				}
			case "function_call_output", "custom_tool_call_output":
				id := jstr(p["call_id"])
				out := p["output"]
				text := jstr(out)
				code, known := 0, false
				var o map[string]any
				if json.Unmarshal([]byte(text), &o) == nil {
					if c, ok := jobj(o["metadata"])["exit_code"].(float64); ok {
						code, known = int(c), true
					}
					text = jstr(o["output"])
				}
				if !known {
					if m := exitText.FindStringSubmatch(text); m != nil {
						code, _ = strconv.Atoi(m[1])
						known = true
					}
				}
				failed := known && code != 0
				if failed && code == 1 && searchNoMatch.MatchString(strings.TrimSpace(calls[id].cmd)) {
					failed = false
					e.result(id, true)
					continue
				}
				e.result(id, failed)
				if failed {
					tr.failTool = calls[id].name
				}
			}
		}
	}
	if tr.instruction == "" {
		tr.instruction = itemPrompt
	}
	tr.edited = e.list()
	return tr
}

// codexRequest is the request in a Codex IDE prompt, else the prompt.
func codexRequest(s string) string {
	const marker = "## My request for Codex:"
	if strings.HasPrefix(strings.TrimSpace(s), "# ") {
		if i := strings.LastIndex(s, "\n"+marker); i >= 0 {
			return strings.TrimSpace(s[i+1+len(marker):])
		}
	}
	return s
}

// geminiTruth reads a Gemini CLI session (one document, or JSON Lines of
// message records) with encoding/json. Its files name no directory: the
// edits stay as written.
func geminiTruth(data []byte) realTruth { return geminiTruthIn(data, "") }

// geminiTruthIn is geminiTruth for a session run in cwd.
func geminiTruthIn(data []byte, cwd string) realTruth {
	tr := realTruth{cwd: cwd}
	var e edits
	var msgs []map[string]any
	var doc map[string]any
	if json.Unmarshal(data, &doc) == nil && doc["messages"] != nil {
		for _, m := range jlist(doc["messages"]) {
			msgs = append(msgs, jobj(m))
		}
	} else {
		msgs = jsonLines(data)
	}
	for _, m := range msgs {
		switch jstr(m["type"]) {
		case "user":
			text := jstr(m["displayContent"])
			if text == "" {
				switch c := m["content"].(type) {
				case string:
					text = c
				case []any:
					for _, p := range c {
						text += jstr(jobj(p)["text"])
					}
				}
			}
			if t := strings.TrimSpace(text); t != "" && !strings.HasPrefix(t, "<") {
				tr.instruction = t
			}
		case "gemini":
			for _, c := range jlist(m["toolCalls"]) {
				call := jobj(c)
				id, name, status := jstr(call["id"]), jstr(call["name"]), jstr(call["status"])
				if name == "write_file" || name == "replace" {
					e.call(id, relTo(tr.cwd, jstr(jobj(call["args"])["file_path"])))
				}
				if status != "" && status != "executing" && status != "scheduled" {
					e.result(id, status != "success")
				}
				if status == "error" {
					tr.failTool = name
				}
			}
		}
	}
	tr.edited = e.list()
	return tr
}

// openclawTruth reads an OpenClaw (pi) session with encoding/json.
func openclawTruth(data []byte) realTruth {
	var tr realTruth
	var e edits
	names := map[string]string{}
	for _, l := range jsonLines(data) {
		if jstr(l["type"]) == "session" {
			tr.cwd = jstr(l["cwd"])
		}
		if jstr(l["type"]) != "message" {
			continue
		}
		msg := jobj(l["message"])
		switch jstr(msg["role"]) {
		case "user":
			var text []string
			switch c := msg["content"].(type) {
			case string:
				text = append(text, c)
			case []any:
				for _, b := range c {
					if jstr(jobj(b)["type"]) == "text" {
						text = append(text, jstr(jobj(b)["text"]))
					}
				}
			}
			if t := strings.TrimSpace(strings.Join(text, "\n")); t != "" {
				tr.instruction = t
			}
		case "assistant":
			for _, b := range jlist(msg["content"]) {
				blk := jobj(b)
				if jstr(blk["type"]) != "toolCall" {
					continue
				}
				id, name := jstr(blk["id"]), jstr(blk["name"])
				names[id] = name
				if name == "write" || name == "edit" {
					a := jobj(blk["arguments"])
					p := jstr(a["path"])
					if p == "" {
						p = jstr(a["file_path"])
					}
					e.call(id, relTo(tr.cwd, p))
				}
			}
		case "toolResult":
			id := jstr(msg["toolCallId"])
			failed, _ := msg["isError"].(bool)
			e.result(id, failed)
			if failed {
				tr.failTool = names[id]
				if tr.failTool == "" {
					tr.failTool = jstr(msg["toolName"])
				}
			}
		}
	}
	tr.edited = e.list()
	return tr
}

// The ground truth TestRealSessions scores against, read from the
// recovery eval's fixtures, finds what each eval case expects: the
// latest instruction, the failing call's tool, the edited files.
func TestRealSessionTruthOnFixtures(t *testing.T) {
	truths := map[string]func([]byte) realTruth{"claude-code": claudeTruth, "codex": codexTruth, "gemini": geminiTruth, "openclaw": openclawTruth}
	for _, tc := range evalCases {
		data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", tc.fixture))
		if err != nil {
			t.Fatal(err)
		}
		truth := truths[tc.host](data)
		if tc.host == "gemini" {
			truth = geminiTruthIn(data, tc.cwd) // its files name no directory
		}
		if truth.instruction != tc.instruction {
			t.Errorf("%s: instruction %q, want %q", tc.fixture, truth.instruction, tc.instruction)
		}
		if tool, _, _ := strings.Cut(tc.failure, ":"); tc.host != "openclaw" && truth.failTool != tool {
			t.Errorf("%s: failing tool %q, want %q", tc.fixture, truth.failTool, tool)
		}
		for _, f := range tc.edited {
			if !slices.Contains(truth.edited, f) {
				t.Errorf("%s: edited %q lacks %q", tc.fixture, truth.edited, f)
			}
		}
		for _, a := range tc.absent {
			if slices.Contains(truth.edited, a) || strings.Contains(truth.instruction, a) {
				t.Errorf("%s: %q in the truth", tc.fixture, a)
			}
		}
	}
}
