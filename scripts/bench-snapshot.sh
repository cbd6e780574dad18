#!/usr/bin/env bash
# Times `ctxgit checkpoint` against git's own plumbing doing the same
# snapshot on a private index (add -A, write-tree, commit-tree, update-ref),
# side by side in the same run, on a synthetic workspace: first snapshot,
# no change, and 5 files changed. Prints medians and ratios (ctxgit / git).
#
#   scripts/bench-snapshot.sh                 # 10,000 files in 500 dirs
#   FILES=100000 DIRS=5000 RUNS=3 scripts/bench-snapshot.sh
set -euo pipefail
FILES=${FILES:-10000}
DIRS=${DIRS:-500}
RUNS=${RUNS:-5}
# Samples of the cheap cases per run: their medians need more than one.
REPS=${REPS:-10}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxgit" ./cmd/ctxgit
go run ./scripts/genws -out "$work/template" -files "$FILES" -dirs "$DIRS"
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

git_snapshot() { # dir
  ( cd "$1" && export GIT_INDEX_FILE="$1/.git/bench-index"
    git add -A && t=$(git write-tree) && c=$(echo snap | git commit-tree "$t") && git update-ref refs/bench/snap "$c" )
}
ctxgit_snapshot() { ( cd "$1" && "$work/ctxgit" checkpoint >/dev/null ) }

change5() { # dir
  for i in 1 2 3 4 5; do echo "change $RANDOM" >> "$(find "$1/src" -name "file0000$i.go")"; done
}

declare -A T
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a/b}'; }
for run in $(seq "$RUNS"); do
  for tool in git ctxgit; do
    d="$work/$tool-$run"
    cp -a "$work/template" "$d"
    git init -q "$d"
  done
  sync
  for tool in git ctxgit; do
    d="$work/$tool-$run"
    t0=$(ms); ${tool}_snapshot "$d"; t1=$(ms)
    T[$tool-first]+="$((t1-t0)) "
    if [ "$tool" = ctxgit ] && [ "$run" = 1 ]; then
      loose=$(git -C "$d" count-objects -v | awk '/^count:/ {print $2}')
    fi
  done
  # Let the first snapshot's files age past ctxgit's 2 s racy margin, as
  # they would between two real checkpoints.
  sleep 2.2
  # Samples alternate between the tools, so both see the same noise; the
  # paired ratios are kept too.
  for rep in $(seq "$REPS"); do
    for c in noop five; do
      if [ "$c" = five ]; then change5 "$work/git-$run"; change5 "$work/ctxgit-$run"; fi
      t0=$(ms); git_snapshot "$work/git-$run"; t1=$(ms)
      ctxgit_snapshot "$work/ctxgit-$run"; t2=$(ms)
      T[git-$c]+="$((t1-t0)) "; T[ctxgit-$c]+="$((t2-t1)) "
      T[pair-$c]+="$(ratio $((t2-t1)) $((t1-t0))) "
    done
  done
  rm -rf "$work/git-$run" "$work/ctxgit-$run"
done

printf 'workspace: %s files in %s directories (+1000 ignored), %s runs x %s samples, %s cores\n' "$FILES" "$DIRS" "$RUNS" "$REPS" "$(nproc)"
printf '%-8s %10s %10s %8s %12s %8s\n' case git_ms ctxgit_ms ratio paired_ratio target
for c in first noop five; do
  g=$(echo "${T[git-$c]}" | tr ' ' '\n' | grep . | median)
  x=$(echo "${T[ctxgit-$c]}" | tr ' ' '\n' | grep . | median)
  pr=-
  [ "$c" != first ] && pr=$(echo "${T[pair-$c]}" | tr ' ' '\n' | grep . | median)
  case $c in first) target=0.70;; *) target=1.00;; esac
  printf '%-8s %10s %10s %8s %12s %8s\n' "$c" "$g" "$x" "$(ratio "$x" "$g")" "$pr" "$target"
done
echo "loose objects in the repository after ctxgit's first snapshot: $loose"
