#!/usr/bin/env bash
# Regenerates docs/BAD-INPUT.md: docs/bad-input-head.md (the hand-written
# part), then one row per `exits N ctxgit …` line (N not 0 or a status
# token) of testdata/scripts/*.txtar with the stderr pattern that follows.
# TestBadInputCatalog fails when a row no longer matches its script.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  cat docs/bad-input-head.md
  echo '## Inputs that are refused'
  echo
  echo '| script:line | input | exit | message (regular expression) |'
  echo '| --- | --- | ---: | --- |'
  for f in testdata/scripts/*.txtar; do
    awk -v name="$(basename "$f")" '
      /^-- / { exit }
      pending != "" {
        if ($0 ~ /^stderr \047.*\047$/) {
          msg = substr($0, 9, length($0) - 9); gsub(/\|/, "\\|", msg)
          print pending " `" msg "` |"; pending = ""; next
        }
        if ($0 !~ /^(stdout|! stdout|cmp|! exists|exists|grep|! stderr)/) { print pending " (see script) |"; pending = "" }
      }
      /^exits (-noperm )?[0-9]+ / {
        noperm = ($2 == "-noperm"); code = noperm ? $3 : $2
        if (code == "0" || code == "10" || code == "11" || code == "12") next
        cmd = $0; sub(/^exits (-noperm )?[0-9]+ /, "", cmd); gsub(/\|/, "\\|", cmd)
        if (noperm) cmd = cmd " (read-only: root without CAP_DAC_OVERRIDE)"
        pending = "| " name ":" NR " | `" cmd "` | " code " |"
      }
      END { if (pending != "") print pending " (see script) |" }
    ' "$f"
  done
  echo
} > docs/BAD-INPUT.md
