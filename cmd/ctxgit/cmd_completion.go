package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxgit/ctxgit/spec"
)

// completionCommand prints a shell's completion script. bash and zsh ask
// the binary itself for candidates (urfave/cli's --generate-bash-completion),
// so the scripts never go stale; fish gets the whole command tree.
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
				s, err := a.cli.ToFishCompletion()
				if err != nil {
					return err
				}
				script = s
			default:
				return spec.Usage("completion: unknown shell %q (bash, zsh or fish)", shell)
			}
			_, err := fmt.Fprint(a.stdout, script)
			return err
		},
	})
}

const bashCompletion = `# bash completion for ctxgit: source <(ctxgit completion bash)
_ctxgit_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  if [[ "$cur" == "-"* ]]; then
    words+=("$cur")
  fi
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$("${words[@]}" --generate-bash-completion 2>/dev/null | cut -d: -f1)" -- "$cur"))
}
complete -o bashdefault -o default -F _ctxgit_complete ctxgit
`

const zshCompletion = `#compdef ctxgit
# zsh completion for ctxgit: ctxgit completion zsh > "${fpath[1]}/_ctxgit"
_ctxgit() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _ctxgit ctxgit
`
