package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// completionCommand prints a shell's completion script. Each script asks
// the binary for candidates (the hidden __complete command, complete.go):
// commands, flags, checkpoint ids, sessions' short ids with their titles,
// host names and plan steps, so the scripts never go stale.
func (a *app) completionCommand() *cli.Command {
	return args("SHELL").command(&cli.Command{
		Name:  "completion",
		Usage: "print a shell completion script (bash, zsh or fish)",
		Description: examples(
			"source <(ctxgit completion bash)          # in ~/.bashrc",
			"ctxgit completion zsh > \"${fpath[1]}/_ctxgit\"",
			"ctxgit completion fish > ~/.config/fish/completions/ctxgit.fish",
		),
		Action: func(c *cli.Context) error {
			var script string
			switch shell := c.Args().First(); shell {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				script = fishCompletion
			default:
				return spec.Usage("completion: unknown shell %q (bash, zsh or fish)", shell)
			}
			_, err := fmt.Fprint(a.stdout, script)
			return err
		},
	})
}

// bashCompletion splits the line itself rather than take COMP_WORDS,
// which bash breaks at ":" (SESSION:cp_001) and "="; the part of the
// word before its last ":" is then taken off each candidate, as bash
// replaces only what follows it.
const bashCompletion = `# bash completion for ctxgit: source <(ctxgit completion bash)
_ctxgit_complete() {
  local line="${COMP_LINE:0:COMP_POINT}" cur cands
  local -a words
  read -r -a words <<< "$line"
  if [[ -z "$line" || "$line" == *[[:space:]] ]]; then
    words+=("")
  fi
  cur="${words[${#words[@]}-1]}"
  local IFS=$'\n'
  cands=$("${words[0]}" __complete -- "${words[@]:1}" 2>/dev/null | cut -f1)
  COMPREPLY=($(compgen -W "$cands" -- "$cur"))
  if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    local i prefix="${cur%:*}:"
    for i in "${!COMPREPLY[@]}"; do
      COMPREPLY[$i]="${COMPREPLY[$i]#"$prefix"}"
    done
  fi
}
complete -o bashdefault -o default -F _ctxgit_complete ctxgit
`

// zshCompletion works both autoloaded from $fpath and sourced.
const zshCompletion = `#compdef ctxgit
# zsh completion for ctxgit: ctxgit completion zsh > "${fpath[1]}/_ctxgit"
_ctxgit() {
  local -a cands
  local line value desc
  for line in "${(@f)$(${words[1]} __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    [[ -z "$line" ]] && continue
    value="${line%%$'\t'*}"
    desc=""
    [[ "$line" == *$'\t'* ]] && desc="${line#*$'\t'}"
    cands+=("${value//:/\\:}:${desc}")
  done
  if (( ${#cands} )); then
    _describe -t values 'ctxgit' cands
  else
    _files
  fi
}
if [[ "${funcstack[1]}" == "_ctxgit" ]]; then
  _ctxgit "$@"
else
  compdef _ctxgit ctxgit
fi
`

// fishCompletion offers files when ctxgit has no candidate (restore's
// paths, why's FILE:LINE).
const fishCompletion = `# fish completion for ctxgit: ctxgit completion fish > ~/.config/fish/completions/ctxgit.fish
function __ctxgit_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($words[1] __complete -- $words[2..-1] $cur 2>/dev/null)
    if test (count $out) -gt 0
        printf '%s\n' $out
    else
        __fish_complete_path $cur
    end
end
complete -c ctxgit -f -a '(__ctxgit_complete)'
`
