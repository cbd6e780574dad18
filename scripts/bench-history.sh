#!/usr/bin/env bash
# Costs against history length, as whole processes in alternating batches:
# `ctxgit recover` and `ctxgit status` in a workspace with 1,000
# checkpoints against one with a single checkpoint (goal ≤ 1.2×), and
# `ctxgit log` of the 1,000 against `git log` of the same ref (goal ≤ 1.5×).
# A checkpoint at either length is shown too, for information.
#
#   scripts/bench-history.sh                    # 1,000 checkpoints, 15 batches of 10 calls
#   CHECKPOINTS=200 BATCHES=5 scripts/bench-history.sh
set -euo pipefail
CHECKPOINTS=${CHECKPOINTS:-1000}
BATCHES=${BATCHES:-15}
CALLS=${CALLS:-10}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxgit" ./cmd/ctxgit
ctxgit=$work/ctxgit
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"

# make_workspace DIR N: a small project with a plan, and N checkpoints,
# each after a file changed, as an agent's session would leave them.
make_workspace() {
  mkdir -p "$1"
  ( cd "$1"
    git init -q .
    for i in $(seq 50); do printf 'package p\n\n// file %d\n' "$i" > "f$i.go"; done
    printf '# Plan: history\n\n## Goal\nMeasure costs against history length.\n\n## Steps\n1. [x] one\n2. [ ] two\n' > .active-plan.md
    "$ctxgit" init >/dev/null
    for i in $(seq "$2"); do
      echo "// change $i" >> "f$(( i % 50 + 1 )).go"
      "$ctxgit" checkpoint -m "step $i" >/dev/null
    done )
}
echo "making workspaces with 1 and $CHECKPOINTS checkpoints..." >&2
make_workspace "$work/short" 1
make_workspace "$work/long" "$CHECKPOINTS"
ref=refs/ctxgit/sessions/default

us() { echo $(( $(date +%s%N) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
batch() { # dir command...
  local dir=$1 t0 t1
  shift
  cd "$dir"
  t0=$(us)
  for _ in $(seq "$CALLS"); do "$@" >/dev/null; done
  t1=$(us)
  echo $(( (t1 - t0) / CALLS ))
}
touch_and_checkpoint() { echo "// more" >> f1.go; "$ctxgit" checkpoint >/dev/null; }

declare -A T
for _ in $(seq "$BATCHES"); do
  for len in short long; do
    T[recover-$len]+="$(batch "$work/$len" "$ctxgit" recover --peek) "
    T[status-$len]+="$(batch "$work/$len" "$ctxgit" status --pressure 40%) "
  done
  T[log-ctxgit]+="$(batch "$work/long" "$ctxgit" log) "
  T[log-git]+="$(batch "$work/long" git log --format='%h %cI %s' "$ref") "
done
# Checkpoints add to the history, so they are measured last.
for _ in $(seq "$BATCHES"); do
  for len in short long; do
    T[checkpoint-$len]+="$(batch "$work/$len" touch_and_checkpoint) "
  done
done

m() { echo "${T[$1]}" | tr ' ' '\n' | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
printf 'history: 1 against %s checkpoints, %s batches of %s calls, %s cores; median µs per call\n' "$CHECKPOINTS" "$BATCHES" "$CALLS" "$(nproc)"
printf '%-26s %10s %10s %8s %6s\n' case anchor_us ctxgit_us ratio goal
row() { # name anchor value goal
  printf '%-26s %10s %10s %8s %6s\n' "$1" "$2" "$3" "$(ratio "$3" "$2")" "$4"
}
row "recover --peek (1 → N)" "$(m recover-short)" "$(m recover-long)" 1.20
row "status (1 → N)" "$(m status-short)" "$(m status-long)" 1.20
row "log of N (git log → ctxgit)" "$(m log-git)" "$(m log-ctxgit)" 1.50
row "checkpoint (1 → N)" "$(m checkpoint-short)" "$(m checkpoint-long)" -
