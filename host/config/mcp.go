package hostconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxgit/ctxgit/internal/atomicfile"
	"github.com/ctxgit/ctxgit/spec"
)

// MCPName is the server's name in every host's MCP config.
const MCPName = "ctxgit"

// mcpFiles are the project MCP configs each host documents
// (docs/HOSTS.md, "MCP server"): JSON with an mcpServers object, or for
// Codex TOML with an [mcp_servers.NAME] table.
var mcpFiles = map[Host]string{
	ClaudeCode: ".mcp.json",
	Codex:      ".codex/config.toml",
	Gemini:     ".gemini/settings.json",
	Cursor:     ".cursor/mcp.json",
}

// MCPFile is the project MCP config of host h, "" when ctxgit knows none.
func MCPFile(h Host) string { return mcpFiles[h] }

// InstallMCP adds `ctxgit mcp` to the host's project MCP config as the
// server "ctxgit" (`ctxgit init --host H --mcp`), or with o.Uninstall
// removes it; everything else in the file is kept. Like Install it
// refuses a file it cannot read as the host's config, backs an existing
// file up before changing it, writes atomically, and removes a file left
// with nothing but what it added.
func InstallMCP(o Options) (*Result, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	rel := mcpFiles[o.Host]
	if rel == "" {
		return nil, spec.Usage("--mcp: %s has no MCP config ctxgit writes; `ctxgit init --mcp` prints the server's entry to add by hand", o.Host)
	}
	prog := o.Program
	if prog == "" {
		prog = DefaultCommand
	}
	res := &Result{Path: rel}
	abs, err := configPath(o, rel)
	if err != nil {
		return nil, err
	}
	data, perm, existed, err := readConfig(abs, rel)
	if err != nil {
		return nil, err
	}
	var out []byte
	var empty bool
	if o.Host == Codex {
		out, empty, err = mergeMCPTOML(data, prog, o.Uninstall, res)
	} else {
		out, empty, err = mergeMCPJSON(data, prog, o.Uninstall, res)
	}
	if err != nil {
		return nil, relErr(rel, data, err)
	}
	var foreign []string // named whether or not ctxgit's was there already
	if !o.Uninstall {
		foreign = foreignNote(rel, "MCP server", string(o.Host)+" starts as it starts ctxgit's", foreignServers(o.Host, out))
	}
	if bytes.Equal(out, data) {
		res.Notes = append(res.Notes, foreign...)
		return res, nil
	}
	res.Changed = true
	if err := prepareWrite(o, rel, abs, data, perm, existed, res); err != nil {
		return nil, err
	}
	if o.Uninstall && existed && empty {
		if err := os.Remove(filepath.Join(o.Root, filepath.FromSlash(rel))); err != nil {
			return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
		}
		res.Notes = append(res.Notes, fmt.Sprintf("removed %s: nothing but ctxgit's server was in it", rel))
		return res, nil
	}
	if err := atomicfile.Write(abs, out, perm); err != nil {
		return nil, &spec.FileError{Path: rel, Err: unwrapPath(err)}
	}
	if o.Host == Codex && !o.Uninstall {
		res.Notes = append(res.Notes, "Codex reads .codex/config.toml only in a trusted project (codex asks on first start)")
	}
	res.Notes = append(res.Notes, foreign...)
	return res, nil
}

// foreignServers lists the MCP servers of a host's config other than
// ctxgit's, "NAME: COMMAND ARGS", sorted by name.
func foreignServers(h Host, data []byte) []string {
	var out []string
	if h == Codex {
		prefix, suffix := tomlKey("mcp_servers", ""), tomlKey("", "command")
		for k, v := range tomlStrings(string(data)) {
			name, ok := strings.CutPrefix(k, prefix)
			if name, ok2 := strings.CutSuffix(name, suffix); ok && ok2 && name != MCPName && !strings.Contains(name, "\x00") {
				out = append(out, name+": "+v)
			}
		}
		slices.Sort(out)
		return out
	}
	doc, err := parse(bytes.TrimPrefix(data, bom))
	if err != nil {
		return nil
	}
	servers := doc.get("mcpServers")
	if servers == nil || servers.kind != kObject {
		return nil
	}
	for _, m := range servers.members {
		if m.key == MCPName || m.val.kind != kObject {
			continue
		}
		c, _ := m.val.str("command")
		if c == "" {
			c, _ = m.val.str("url")
		}
		if a := m.val.get("args"); a != nil && a.kind == kArray {
			// Joined only as far as the note shows (foreignNote): a
			// clone's file may hold millions of arguments.
			for _, e := range a.elems {
				if len(c) > 4*noteCommandRunes {
					break
				}
				c += " " + e.text
			}
		}
		out = append(out, m.key+": "+c)
	}
	slices.Sort(out)
	return out
}

// relErr names the file (and for JSON the line) of a config refused.
func relErr(rel string, data []byte, err error) error {
	return invalidAt(rel, bytes.TrimPrefix(data, bom), err)
}

// mcpEntryText is how results name the entry.
func mcpEntryText(prog string) string { return "mcp server " + MCPName + ": " + prog + " mcp" }

// ownMCP reports whether a server entry is ctxgit's: it runs prog, or a
// ctxgit by name or path, with the one argument mcp.
func ownMCP(command, prog string, args []string) bool {
	if command == prog && len(args) == 1 && args[0] == "mcp" {
		return true
	}
	base := strings.TrimSuffix(filepath.Base(filepath.ToSlash(command)), ".exe")
	base = filepath.Base(strings.ReplaceAll(base, `\`, "/"))
	return base == DefaultCommand && len(args) == 1 && args[0] == "mcp"
}

// mergeMCPJSON adds or removes mcpServers.ctxgit in a JSON config,
// keeping the user's keys, order and number text.
func mergeMCPJSON(data []byte, prog string, uninstall bool, res *Result) (out []byte, empty bool, err error) {
	body := bytes.TrimPrefix(data, bom)
	doc, err := parse(body)
	if err != nil {
		return nil, false, err
	}
	servers := doc.get("mcpServers")
	if servers != nil && servers.kind != kObject {
		return nil, false, fmt.Errorf("mcpServers is %s, not an object", describe(servers))
	}
	cur := servers.get(MCPName)
	own := false
	if cur != nil {
		cmd, _ := cur.str("command")
		var args []string
		if a := cur.get("args"); a != nil && a.kind == kArray {
			for _, e := range a.elems {
				args = append(args, e.text)
			}
		}
		own = cur.kind == kObject && ownMCP(cmd, prog, args)
		if !own && !uninstall {
			return nil, false, fmt.Errorf("mcpServers.%s is not ctxgit's server: rename or remove it first", MCPName)
		}
		if own && cmd == prog && !uninstall {
			return data, false, nil
		}
	}
	if uninstall {
		if !own {
			return data, false, nil
		}
		servers.del(MCPName)
		if len(servers.members) == 0 {
			doc.del("mcpServers")
		}
		res.Removed = append(res.Removed, mcpEntryText(prog))
		return render(doc, data), len(doc.members) == 0, nil
	}
	if servers == nil {
		servers = newObject()
		doc.set("mcpServers", servers)
	}
	entry := newObject()
	entry.set("command", newString(prog))
	args := newArray()
	args.elems = append(args.elems, newString("mcp"))
	entry.set("args", args)
	servers.set(MCPName, entry)
	res.Added = append(res.Added, mcpEntryText(prog))
	return render(doc, data), false, nil
}

// mcpTOMLHeader is the table Codex reads the server from.
const mcpTOMLHeader = "[mcp_servers." + MCPName + "]"

// mergeMCPTOML adds or removes the [mcp_servers.ctxgit] table of a Codex
// config by its lines: everything else, comments included, stays byte
// for byte. A server named ctxgit in another form (a dotted key, an
// inline table) is the person's to edit.
func mergeMCPTOML(data []byte, prog string, uninstall bool, res *Result) (out []byte, empty bool, err error) {
	text := string(data)
	lines := strings.SplitAfter(text, "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		s := strings.TrimSpace(l)
		if start < 0 && (s == mcpTOMLHeader || s == `[mcp_servers."`+MCPName+`"]`) {
			start = i
			continue
		}
		if start >= 0 && strings.HasPrefix(s, "[") {
			end = i
			break
		}
	}
	values := tomlStrings(text)
	if start < 0 {
		if _, ok := values[tomlKey("mcp_servers", MCPName, "command")]; ok {
			return nil, false, fmt.Errorf("mcp_servers.%s is set in a form ctxgit does not edit: change or remove it by hand", MCPName)
		}
	}
	block := mcpTOMLHeader + "\ncommand = " + strconv.Quote(prog) + "\nargs = [\"mcp\"]\n"
	if start >= 0 {
		cur := strings.Join(lines[start:end], "")
		cmd := values[tomlKey("mcp_servers", MCPName, "command")]
		own := strings.Contains(cur, `args = ["mcp"]`) && ownMCP(cmd, prog, []string{"mcp"})
		if !own {
			if uninstall {
				return data, false, nil
			}
			return nil, false, fmt.Errorf("%s is not ctxgit's server: rename or remove it first", mcpTOMLHeader)
		}
		// The block ends at its last non-blank line: blank lines and
		// comments before the next table belong to what follows.
		last := end
		for last > start+1 && strings.TrimSpace(lines[last-1]) == "" {
			last--
		}
		before, after := strings.Join(lines[:start], ""), strings.Join(lines[last:], "")
		if uninstall {
			res.Removed = append(res.Removed, mcpEntryText(cmd))
			before = strings.TrimRight(before, "\n")
			if before != "" {
				before += "\n"
			}
			if before != "" && strings.TrimSpace(after) != "" {
				before += "\n"
			}
			out := before + strings.TrimLeft(after, "\n")
			return []byte(out), strings.TrimSpace(out) == "", nil
		}
		if strings.Join(lines[start:last], "") == block {
			return data, false, nil
		}
		res.Added = append(res.Added, mcpEntryText(prog))
		return []byte(before + block + after), false, nil
	}
	if uninstall {
		return data, false, nil
	}
	res.Added = append(res.Added, mcpEntryText(prog))
	if strings.TrimSpace(text) == "" {
		return []byte(block), false, nil
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return []byte(text + "\n" + block), false, nil
}

// MCPSnippet is the server's entry for a host ctxgit does not configure:
// the mcpServers JSON most hosts take, to paste by hand.
func MCPSnippet(prog string) string {
	return "{\n  \"mcpServers\": {\n    \"" + MCPName + "\": {\n      \"command\": " + strconv.Quote(prog) + ",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"
}
