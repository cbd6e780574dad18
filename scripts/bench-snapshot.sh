#!/usr/bin/env bash
# Times `ctxgit checkpoint` against git's own plumbing doing the same
# snapshot on a private index (add -A, write-tree, commit-tree, update-ref),
# side by side in the same run, on synthetic workspaces: first snapshot,
# no change, and 5 files changed. Prints medians and ratios (ctxgit / git),
# ctxgit's peak memory, `git count-objects -v` before and after ctxgit's
# first snapshot, and, when more than one size is given, how the cost of an
# incremental checkpoint grows from the first size to the others.
#
#   scripts/bench-snapshot.sh                            # 10,000 files in 500 dirs
#   SIZES="10000:500 100000:5000" RUNS=3 scripts/bench-snapshot.sh
set -euo pipefail
SIZES=${SIZES:-${FILES:-10000}:${DIRS:-500}}
RUNS=${RUNS:-5}
# Samples of the cheap cases per run: their medians need more than one.
REPS=${REPS:-10}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxgit" ./cmd/ctxgit
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a/b}'; }

git_snapshot() { # dir
  ( cd "$1" && export GIT_INDEX_FILE="$1/.git/bench-index"
    git add -A && t=$(git write-tree) && c=$(echo snap | git commit-tree "$t") && git update-ref refs/bench/snap "$c" )
}
ctxgit_snapshot() { ( cd "$1" && "$work/ctxgit" checkpoint >/dev/null ) }
# Peak resident memory (KiB) of a checkpoint, from the kernel's rusage.
ctxgit_peak() { ( cd "$1" && /usr/bin/time -f %M -o "$work/peak" "$work/ctxgit" checkpoint >/dev/null ) && cat "$work/peak"; }

change5() { # dir
  for i in 1 2 3 4 5; do echo "change $RANDOM" >> "$(find "$1/src" -name "file0000$i.go" | head -1)"; done
}

declare -A T
bench_size() { # files dirs
  local files=$1 dirs=$2 size=$1 run tool d t0 t1 t2 rep c
  rm -rf "$work/template"
  go run ./scripts/genws -out "$work/template" -files "$files" -dirs "$dirs"
  for run in $(seq "$RUNS"); do
    for tool in git ctxgit; do
      d="$work/$tool-$run"
      cp -a "$work/template" "$d"
      git init -q "$d"
    done
    sync
    git -C "$work/ctxgit-$run" count-objects -v > "$work/count-before-$size"
    t0=$(ms); git_snapshot "$work/git-$run"; t1=$(ms)
    T[$size-git-first]+="$((t1-t0)) "
    # The first snapshot is timed under /usr/bin/time for its peak
    # memory; a fork and exec more is nothing against its hundreds of ms.
    t0=$(ms); T[$size-peak-first]+="$(ctxgit_peak "$work/ctxgit-$run") "; t1=$(ms)
    T[$size-ctxgit-first]+="$((t1-t0)) "
    git -C "$work/ctxgit-$run" count-objects -v > "$work/count-after-$size"
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
        T[$size-git-$c]+="$((t1-t0)) "; T[$size-ctxgit-$c]+="$((t2-t1)) "
        T[$size-pair-$c]+="$(ratio $((t2-t1)) $((t1-t0))) "
      done
    done
    # Peak memory of an incremental checkpoint, outside the timed samples.
    change5 "$work/ctxgit-$run"
    T[$size-peak-five]+="$(ctxgit_peak "$work/ctxgit-$run") "
    rm -rf "$work/git-$run" "$work/ctxgit-$run"
  done
}

m() { echo "${T[$1]}" | tr ' ' '\n' | grep . | median; }
first=
for s in $SIZES; do
  files=${s%%:*} dirs=${s##*:}
  [ -n "$first" ] || first=$files
  bench_size "$files" "$dirs"
  printf '\nworkspace: %s files in %s directories (+1000 ignored), %s runs x %s samples, %s cores\n' "$files" "$dirs" "$RUNS" "$REPS" "$(nproc)"
  printf '%-8s %10s %10s %8s %12s %8s %14s\n' case git_ms ctxgit_ms ratio paired_ratio target ctxgit_peak_MiB
  for c in first noop five; do
    g=$(m "$files-git-$c")
    x=$(m "$files-ctxgit-$c")
    pr=- peak=-
    [ "$c" != first ] && pr=$(m "$files-pair-$c")
    [ "$c" != noop ] && peak=$(awk -v k="$(echo "${T[$files-peak-$c]}" | tr ' ' '\n' | sort -n | tail -1)" 'BEGIN {printf "%.0f", k/1024}')
    case $c in first) target=0.70;; *) target=1.00;; esac
    printf '%-8s %10s %10s %8s %12s %8s %14s\n' "$c" "$g" "$x" "$(ratio "$x" "$g")" "$pr" "$target" "$peak"
  done
  echo "git count-objects -v before and after ctxgit's first snapshot (last run):"
  paste "$work/count-before-$files" "$work/count-after-$files" | awk -F'\t' '{split($1, a, ": "); split($2, b, ": "); printf "  %-16s %10s -> %s\n", a[1] ":", a[2], b[2]}'
done
if [ "$first" != "$files" ]; then
  printf '\ngrowth of an incremental checkpoint (5 files changed), %s files -> others (goal ≤ 12.0 at 10x the files):\n' "$first"
  for s in $SIZES; do
    files=${s%%:*}
    [ "$files" = "$first" ] && continue
    printf '  %s files: ctxgit %s (%s -> %s ms), git %s (%s -> %s ms)\n' "$files" \
      "$(ratio "$(m "$files-ctxgit-five")" "$(m "$first-ctxgit-five")")" "$(m "$first-ctxgit-five")" "$(m "$files-ctxgit-five")" \
      "$(ratio "$(m "$files-git-five")" "$(m "$first-git-five")")" "$(m "$first-git-five")" "$(m "$files-git-five")"
  done
fi
