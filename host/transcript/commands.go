package transcript

import "strings"

// hostCommand reports whether text is one of a host's own commands that
// change or show the session and carry no task, as the user typed it
// ("/compact", "/compress focus on the API", "/model gpt-5"): never the
// user's request, however the host records it (docs/HOSTS.md,
// "Transcripts", "Host commands"). Claude Code queues the command in
// `claude -p` (queue-operation enqueue "/compact") before its echo;
// Gemini CLI headless sends `-p "/compress"` to the model as a prompt
// while it compresses; `codex exec "/compact"` is sent as text. A command
// that expands into a task (/init, /review) and any command the host
// does not ship is the user's.
func hostCommand(f Format, text string) bool {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '/' {
		return false
	}
	name, _, _ := strings.Cut(t, " ")
	name, _, _ = strings.Cut(name, "\n")
	name, _, _ = strings.Cut(name, "\t")
	return hostCommands[f][strings.ToLower(name)]
}

// hostCommands are, per host, the built-in commands that change or show
// the session rather than ask for work.
var hostCommands = map[Format]map[string]bool{
	// code.claude.com/docs/en/slash-commands. /init, /review,
	// /security-review and /pr-comments expand into a task.
	ClaudeCode: set("/add-dir", "/agents", "/allowed-tools", "/bashes", "/bug", "/clear", "/compact",
		"/config", "/context", "/cost", "/doctor", "/exit", "/export", "/feedback",
		"/help", "/hooks", "/ide", "/install-github-app", "/login", "/logout", "/mcp",
		"/memory", "/migrate-installer", "/model", "/output-style", "/permissions", "/plugin",
		"/privacy-settings", "/release-notes", "/reset", "/resume", "/rewind", "/sandbox",
		"/stats", "/status", "/statusline", "/terminal-setup", "/theme", "/todos",
		"/upgrade", "/usage", "/vim", "/new", "/quit", "/fast", "/tasks"),
	// Gemini CLI 0.61.0's BuiltinCommandLoader (bundle: the commands and
	// their altNames); /init expands into a task.
	Gemini: set("/about", "/agents", "/auth", "/bug", "/bug-memory", "/chat", "/clear", "/new", "/commands",
		"/compress", "/summarize", "/compact", "/copy", "/corgi", "/docs", "/export-session", "/directory", "/dir",
		"/editor", "/extensions", "/help", "/?", "/footer", "/statusline", "/shortcuts", "/hooks", "/rewind", "/ide",
		"/oncall", "/mcp", "/memory", "/model", "/permissions", "/plan", "/policies", "/privacy", "/profile",
		"/quit", "/exit", "/restore", "/resume", "/load", "/stats", "/usage", "/theme", "/tools", "/skills",
		"/settings", "/gemma", "/tasks", "/bg", "/background", "/vim", "/setup-github", "/terminal-setup",
		"/voice", "/upgrade", "/checkpoints", "/checkpoint", "/signin", "/login", "/signout", "/logout"),
	// developers.openai.com/codex/cli/slash-commands; /init and /review
	// are tasks.
	Codex: set("/permissions", "/approvals", "/apps", "/compact", "/diff", "/exit", "/quit", "/feedback",
		"/logout", "/mcp", "/mention", "/model", "/new", "/clear", "/resume", "/fork", "/rename", "/status",
		"/statusline", "/theme", "/personality", "/fast", "/experimental", "/plan", "/copy", "/skills",
		"/agent", "/agents", "/subagents", "/ps", "/stop", "/ide", "/keymap", "/vim", "/setup-default-sandbox",
		"/archive", "/delete", "/debug-config", "/pwd", "/usage", "/hooks", "/export", "/rollout", "/title"),
	// docs.openclaw.ai/tools/slash-commands (2026.9.6's bundled docs): the
	// Gateway's commands and directives, handled before the model; /btw,
	// /side, /goal, /steer, /tell, /send, /skill and the like carry work.
	OpenClaw: set("/help", "/commands", "/status", "/whoami", "/id", "/new", "/reset", "/compact", "/stop",
		"/model", "/models", "/think", "/thinking", "/t", "/verbose", "/v", "/reasoning", "/reason", "/trace",
		"/elevated", "/elev", "/exec", "/fast", "/queue", "/usage", "/context", "/config", "/debug",
		"/diagnostics", "/restart", "/activation", "/allowlist", "/approve", "/session", "/subagents",
		"/tasks", "/tts", "/voice", "/talkvoice", "/export", "/export-session", "/export-trajectory",
		"/trajectory", "/name", "/login", "/mcp", "/plugin", "/plugins", "/tools", "/update", "/pair",
		"/dreaming", "/agentstatus", "/dashboard"),
	// Qwen Code 0.24.4's BuiltinCommandLoader (the bundle: each command's
	// name and altNames); /init, /btw, /goal, /summary, /insight, /learn,
	// /remember, /plan, /arena, /fork, /advisor, /dream and /curator carry
	// work.
	QwenCode: set("/status", "/about", "/agents", "/tasks", "/approval-mode", "/auth", "/connect", "/login",
		"/branch", "/peers", "/bug", "/cd", "/clear", "/reset", "/new", "/compress", "/summarize",
		"/compress-fast", "/config", "/context", "/copy", "/diff", "/delete", "/docs", "/doctor", "/directory",
		"/dir", "/editor", "/effort", "/export", "/extensions", "/help", "/?", "/history", "/hooks", "/ide",
		"/import-config", "/language", "/mcp", "/forget", "/memory", "/model", "/output-style", "/permissions",
		"/trust", "/quit", "/exit", "/recap", "/reload-plugins", "/rename", "/tag", "/resume", "/continue",
		"/rewind", "/rollback", "/skills", "/stats", "/usage", "/theme", "/tools", "/settings", "/vim",
		"/update", "/voice", "/setup-github", "/terminal-setup", "/statusline", "/lsp"),
	// GitHub Copilot CLI 1.0.102 (`copilot help commands`); /init,
	// /delegate, /autopilot, /pr, /review, /security-review, /rubber-duck,
	// /move, /ask, /plan, /refine and /research carry work.
	Copilot: set("/agent", "/skills", "/mcp", "/plugin", "/model", "/fleet", "/tasks", "/ide", "/diff", "/lsp",
		"/terminal-setup", "/permissions", "/allow-all", "/sandbox", "/add-dir", "/list-dirs", "/cwd",
		"/reset-allowed-tools", "/resume", "/rename", "/fork", "/worktree", "/context", "/usage", "/session",
		"/compact", "/share", "/remote", "/copy", "/rewind", "/help", "/changelog", "/feedback", "/diagnose",
		"/theme", "/statusline", "/footer", "/update", "/version", "/experimental", "/memory", "/clear",
		"/instructions", "/app", "/chronicle", "/collect-debug-logs", "/computer", "/env", "/exit",
		"/keep-alive", "/limits", "/login", "/logout", "/new", "/restart", "/search", "/settings",
		"/subagents", "/user", "/vim", "/voice"),
	// opencode 1.18.33's TUI commands (the binary: each command's slash
	// name and aliases), which the client runs without a message; a
	// project's own commands expand into a task.
	OpenCode: set("/compact", "/summarize", "/copy", "/export", "/fork", "/redo", "/rename", "/share",
		"/thinking", "/toggle-thinking", "/timeline", "/timestamps", "/toggle-timestamps", "/undo", "/unshare",
		"/agents", "/connect", "/debug", "/diff", "/editor", "/exit", "/quit", "/q", "/help", "/mcps",
		"/models", "/mo", "/new", "/clear", "/org", "/orgs", "/switch-org", "/sessions", "/resume",
		"/continue", "/skills", "/status", "/themes", "/variants", "/workspaces"),
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
