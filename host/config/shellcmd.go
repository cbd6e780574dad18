package hostconfig

import (
	"fmt"
	"strings"
)

// How each host runs a hook's command string, per operating system
// (docs/HOSTS.md, "Hooks on each OS", names the source of each):
//
//   - Claude Code: `sh -c` on macOS and Linux; on Windows Git Bash, or
//     PowerShell when Git Bash is not installed.
//   - Codex: `$SHELL -lc` (default /bin/sh) on Unix; `%COMSPEC% /C`
//     (cmd.exe) on Windows, and some releases PowerShell.
//   - Gemini CLI: `bash -c` on Unix; PowerShell (`-Command`) on Windows.
//   - Qwen Code: Gemini CLI's (its fork): `bash -c` on Unix, PowerShell
//     (`-Command`) on Windows.
//   - GitHub Copilot CLI: an entry's `bash` command on Unix, its
//     `powershell` command on Windows.
//   - Cursor: its documentation says nothing; on Windows reports name
//     PowerShell and cmd.exe.
//   - OpenClaw: no shell; handler.ts spawns the program itself.
//   - opencode: no shell; ctxgit's plugin spawns the program itself.
//
// A command ctxgit writes must mean the same in every shell its host may
// use on the user's OS, so the program is written in the one form those
// shells share.
type shell string

const (
	shPOSIX      shell = "sh"         // sh, bash, zsh, fish, as `-c` / `-lc`
	shGitBash    shell = "git-bash"   // MSYS bash on Windows
	shPowerShell shell = "powershell" // Windows PowerShell 5.1 or pwsh, `-Command`
	shCmd        shell = "cmd"        // cmd.exe /C
)

// hostShells lists the shells host h may run its hook commands with on
// goos; none for OpenClaw, whose handler runs no shell.
func hostShells(h Host, goos string) []shell {
	if h == OpenClaw || h == OpenCode {
		return nil
	}
	if goos != "windows" {
		return []shell{shPOSIX}
	}
	switch h {
	case ClaudeCode:
		return []shell{shGitBash, shPowerShell}
	case Gemini, QwenCode, Copilot:
		return []shell{shPowerShell}
	}
	// Codex (cmd.exe in its source, PowerShell in reports) and Cursor
	// (undocumented; both reported).
	return []shell{shCmd, shPowerShell}
}

// ErrUnwritable says a program path has no form that every shell a host
// may use on that OS runs as the same program.
type ErrUnwritable struct {
	Host    Host
	GOOS    string
	Program string
	Shells  []shell
}

func (e *ErrUnwritable) Error() string {
	names := make([]string, len(e.Shells))
	for i, s := range e.Shells {
		names[i] = string(s)
	}
	return fmt.Sprintf("%s runs hooks with %s on %s, and no form of %q means the same program in all of them (spaces or shell characters)",
		e.Host, strings.Join(names, " or "), e.GOOS, e.Program)
}

// ProgramCommand renders program (a bare name found on PATH, or a path)
// as the start of a hook command line for host h on goos: the words that
// follow it (`hook HOST EVENT`, `statusline`) need no quoting in any
// shell. A bare name stays as it is; a path is quoted or spelled for the
// host's shells there; on Windows a path without an extension gets
// `.exe`. For OpenClaw, which runs no shell, the program is returned as
// it is.
func ProgramCommand(h Host, goos, program string) (string, error) {
	if h == OpenClaw || h == OpenCode || isBareName(program) {
		return program, nil
	}
	shells := hostShells(h, goos)
	if goos != "windows" {
		return posixWord(program), nil
	}
	if !strings.Contains(program[strings.LastIndexAny(program, `/\`)+1:], ".") {
		program += ".exe"
	}
	back := strings.ReplaceAll(program, "/", `\`)
	switch {
	case len(shells) == 1 && shells[0] == shPowerShell:
		if winPlain(back) {
			return back, nil
		}
		// A quoted path is a string expression to PowerShell; the call
		// operator runs it.
		return "& " + powershellQuote(back), nil
	case shells[0] == shGitBash:
		// Git Bash reads a backslash as an escape; PowerShell needs `&`
		// before a quoted path, which bash refuses. Forward slashes,
		// unquoted, are a path to both.
		fwd := strings.ReplaceAll(program, `\`, "/")
		if winPlain(fwd) {
			return fwd, nil
		}
	default:
		// cmd.exe takes no single quotes, and a quoted program followed
		// by arguments loses its quotes on the way through hosts that
		// escape them for CreateProcess (`\"`); PowerShell needs `&`,
		// which cmd.exe reads as a separator. Unquoted is what both run.
		if winPlain(back) {
			return back, nil
		}
	}
	return "", &ErrUnwritable{Host: h, GOOS: goos, Program: program, Shells: shells}
}

// isBareName reports whether p is a program name a shell looks up on
// PATH and that needs no quoting in any shell.
func isBareName(p string) bool {
	if p == "" || p[0] == '-' || p[0] == '.' {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// winPlain reports whether a Windows path needs no quoting in Git Bash,
// PowerShell or cmd.exe: letters, digits, `_ - .`, separators and the
// drive's colon.
func winPlain(p string) bool {
	if p == "" || p[0] == '-' {
		return false
	}
	for i, r := range p {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '_' || r == '-' || r == '.' || r == '/' || r == '\\' || r == ':' && i == 1
		if !ok {
			return false
		}
	}
	return true
}

// posixWord quotes p for sh, bash and zsh, and for fish, where a
// backslash inside single quotes can escape: plain characters stay
// plain, the rest goes in single quotes, with `'` and `\` written
// outside them.
func posixWord(p string) string {
	plain := true
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:+,@", r)) {
			plain = false
			break
		}
	}
	if plain && p != "" && p[0] != '-' {
		return p
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range p {
		switch r {
		case '\'':
			b.WriteString(`'\''`)
		case '\\':
			b.WriteString(`'\\'`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// powershellQuote writes s as a PowerShell single-quoted string, in which
// only a quote is special (PowerShell also takes the typographic single
// quotes as quotes): each is doubled.
func powershellQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if r == '\'' || r == '\u2018' || r == '\u2019' || r == '\u201a' || r == '\u201b' {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
