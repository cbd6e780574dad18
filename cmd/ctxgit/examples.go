package main

import (
	"embed"
	"strings"

	"github.com/urfave/cli/v2"
)

// commandExamples are the examples each command's help ends with. They are
// kept in one table so a command without examples is easy to see (and
// TestEveryCommandHasExamples fails on it).
var commandExamples = map[string][]string{
	"init":       {"ctxgit init", "ctxgit init --host claude-code", "ctxgit init --host codex --uninstall", "ctxgit init --git-hooks", "ctxgit init --host claude-code --mcp"},
	"mcp":        {"ctxgit mcp   # as an MCP host starts it", "ctxgit init --host cursor --mcp   # tell Cursor to start it"},
	"why":        {"ctxgit why parse.go:12", "ctxgit why parse.go:10,20 --json"},
	"git-hook":   {"ctxgit git-hook prepare-commit-msg .git/COMMIT_EDITMSG message   # as git's hook runs it"},
	"checkpoint": {"ctxgit checkpoint -m 'parser half done'", "ctxgit checkpoint --next 'wire the CSV writer' --json"},
	"recover":    {"ctxgit recover", "ctxgit recover --force --budget 4000", "ctxgit recover --write   # CONTEXT_RECOVERY.md"},
	"log":        {"ctxgit log", "ctxgit log --sessions", "ctxgit log -s origin/default --json", "ctxgit --no-pager log -n 5"},
	"show":       {"ctxgit show", "ctxgit show cp_003", "ctxgit show --yaml cp_003   # the stored YAML", "ctxgit show origin/default:cp_003 --json"},
	"diff":       {"ctxgit diff", "ctxgit diff cp_001 @ --stat", "ctxgit diff cp_002 --name-only", "ctxgit diff -p cp_002 cp_003", "ctxgit diff -p --color=always | less -R"},
	"report":     {"ctxgit report > pr.md", "ctxgit report --since cp_004"},
	"plan":       {"ctxgit plan", "ctxgit plan mark 2 done", "ctxgit plan mark 3 failed --reason 'API gone'"},
	"decide":     {"ctxgit decide 'Keep the v1 ledger read-only' --why 'rollback stays possible'"},
	"fail":       {"ctxgit fail 'Dual write lost events' --type Logic/Approach --action Pivot --lesson 'batch writes'", "ctxgit fail --resolved", "ctxgit fail --resolved f_002"},
	"ensure":     {"ctxgit ensure --goal 'migrate billing to the new ledger'"},
	"status":     {"ctxgit status", "ctxgit status --tokens 150000 --window 200000", "ctxgit status --pressure 0.72 --json"},
	"resume":     {"ctxgit resume --override --reason 'window raised to 1M'"},
	"restore":    {"ctxgit restore src/parser.go   # from the newest checkpoint that has it", "ctxgit restore --dry-run cp_001", "ctxgit restore cp_001 -- src/parser.go docs/", "ctxgit restore --delete cp_004"},
	"summary":    {"ctxgit summary", "ctxgit summary --json"},
	"bundle":     {"ctxgit bundle", "ctxgit bundle --budget 8000 --json"},
	"state":      {"ctxgit state get next_action", "ctxgit state set next_action 'run the reconciliation job'", "ctxgit state action --summary 'dual write wired' --outcome success"},
	"gauge":      {"ctxgit gauge --tokens 162000 --window 200000"},
	"hook":       {"echo \"$PAYLOAD\" | ctxgit hook claude-code session-start   # as a host runs it"},
	"statusline": {"echo \"$STATUS_JSON\" | ctxgit statusline   # as Claude Code runs it"},
	"transcript": {"ctxgit transcript show ~/.claude/projects/app/SESSION.jsonl", "ctxgit transcript repair SESSION.jsonl --dry-run"},
	"prune":      {"ctxgit prune --dry-run", "ctxgit prune --keep 20"},
	"doctor":     {"ctxgit doctor", "ctxgit doctor --fix"},
	"push":       {"ctxgit push origin", "ctxgit push origin --session 7f3c2a10", "ctxgit push origin --all --force"},
	"fetch":      {"ctxgit fetch", "ctxgit fetch upstream --json"},
	"demo":       {"ctxgit demo", "ctxgit demo --dir /tmp/ctxgit-demo"},
	"__complete": {"ctxgit __complete -- show ''   # as the completion scripts run it: candidates for show's CHECKPOINT"},
	"help":       {"ctxgit help", "ctxgit help restore", "ctxgit help plan mark"},
	"git":        {"ctxgit git -- log refs/ctxgit/sessions/default", "ctxgit git -- remote add origin URL"},
}

// helpTexts holds what each command does, beyond its one-line usage: the
// behaviour a user relies on (outputs, refusals, effects on files and
// refs). help/NAME.md is a top-level command; help/PARENT_SUB.md a
// subcommand. The same text is the command's DESCRIPTION in `ctxgit help`,
// its section in docs/cli.md and in the man page, so the three never
// disagree.
//
//go:embed help
var helpTexts embed.FS

// helpText is the help text of the command at path ("state", "set"), or
// "" if it has none.
func helpText(path ...string) string {
	data, err := helpTexts.ReadFile("help/" + strings.Join(path, "_") + ".md")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// describe sets each command's help DESCRIPTION to its help text and then
// its examples, unless the command wrote its own description.
func describe(cmds []*cli.Command, parents ...string) {
	for _, c := range cmds {
		path := append(append([]string{}, parents...), c.Name)
		var parts []string
		if text := helpText(path...); text != "" {
			parts = append(parts, text)
		}
		if c.Description != "" {
			parts = append(parts, c.Description)
		} else if ex, ok := commandExamples[c.Name]; ok && len(parents) == 0 {
			parts = append(parts, examples(ex...))
		}
		c.Description = strings.Join(parts, "\n\n")
		describe(c.Subcommands, path...)
	}
}
