#!/usr/bin/env bash
# Times `ctxgit checkpoint` on a large real tree against git's plumbing on
# a private index (add -A, write-tree, commit-tree, update-ref) and
# against `git status --porcelain`, side by side: first snapshot, no
# change, and 5 files changed (issue 37).
#
# The tree is terraform v1.10.5 as the Go module proxy serves it
# (`go mod download -json github.com/hashicorp/terraform@v1.10.5`),
# copied COPIES times (c001/, c002/, …), committed and packed with
# `git gc`: 40 copies are 184,880 files, 200 are 924,400. It is built once
# into TREES and reused by later runs; each run makes one copy per tool,
# its .git copied and its worktree hard-linked to the template's (a copy
# of 200 copies is 9 GB), and removes them at the end. The 5 changed files
# are tracked .go files spread over the copies, replaced by a new file
# with a line appended (written beside and renamed over, as an editor
# saves, so the template's inode is never written).
#
# Every sample is one run of scripts/benchrun, which reports the
# processes' wall time, CPU time (user + system) and peak resident memory
# (for git's plumbing, the times of its four processes summed and the
# largest peak). Samples alternate between the tools within each case, so
# the machine's drift hits them alike, and the paired ratios (each
# ctxgit sample over the git sample beside it) are printed with their
# spread. Ratios are ctxgit / git's plumbing ("plumb") and ctxgit /
# `git status --porcelain` ("status"); the load average is printed
# before and after. After the samples, one more no-change checkpoint runs
# with GODEBUG=gctrace=1 to count its garbage collections, and one with
# GOGC=5 as well for its largest live heap.
#
#   scripts/bench-scale.sh                        # 184,880 files, 3 samples, ~5 min
#   COPIES=200 REPS=3 scripts/bench-scale.sh      # 924,400 files, the long tier, ~35 min
#   BASE=<commit> scripts/bench-scale.sh          # also ctxgit at that commit, alternating
#   CLEAN=1 scripts/bench-scale.sh                # remove the template afterwards
#
# The machine may be shared: compare ratios from one run, not times across
# runs, and prefer the CPU ratios when the load average is high. Run one
# at a time: making and removing a copy's hard links changes the
# template's files' ctime, so a run beside another on the same template
# sees every file changed.
set -euo pipefail
COPIES=${COPIES:-40}
REPS=${REPS:-3}
TREES=${TREES:-${TMPDIR:-/tmp}/ctxgit-bench-trees}
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxgit" ./cmd/ctxgit
go build -o "$work/benchrun" ./scripts/benchrun
tools="plumb ctxgit status"
if [ -n "${BASE:-}" ]; then
  mkdir -p "$work/base-src"
  git archive "$BASE" | tar -x -C "$work/base-src"
  (cd "$work/base-src" && go build -o "$work/base" ./cmd/ctxgit)
  tools="plumb ctxgit status base"
fi
# The module cache stays the user's: HOME changes below.
GOMODCACHE=$(go env GOMODCACHE)
export GOMODCACHE GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"

load() { cut -d' ' -f1-3 /proc/loadavg; }

# The template: built once, reused while its marker says it is complete.
tmpl="$TREES/terraform-x$COPIES"
if [ ! -e "$tmpl/.git/bench-complete" ]; then
  src=$( (cd "$work" && go mod download -json github.com/hashicorp/terraform@v1.10.5) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$src" ] || { echo "bench-scale: cannot download terraform v1.10.5" >&2; exit 1; }
  echo "building $tmpl ($COPIES copies of $src)"
  rm -rf "$tmpl"
  mkdir -p "$tmpl"
  git init -q "$tmpl"
  for i in $(seq -f %03g "$COPIES"); do cp -r "$src/." "$tmpl/c$i"; done
  chmod -R u+w "$tmpl"
  (cd "$tmpl" && git add -A && git -c gc.auto=0 commit -q -m "terraform v1.10.5 x$COPIES" && git gc -q)
  touch "$tmpl/.git/bench-complete"
fi
files=$(git -C "$tmpl" ls-files | wc -l)
# Five tracked Go files, evenly spread over the tree.
git -C "$tmpl" ls-files '*.go' | awk -v n="$(git -C "$tmpl" ls-files '*.go' | wc -l)" 'NR % int(n / 5) == 7' | head -5 > "$work/changes"

# One copy per tool: .git copied (the index and refs are each tool's
# own), the worktree hard-linked.
for tool in $tools; do
  d="$work/tree-$tool"
  mkdir -p "$d"
  cp -a "$tmpl/.git" "$d/.git"
  rm -f "$d/.git/bench-complete"
  for e in "$tmpl"/*; do cp -al "$e" "$d/"; done
done
sync

# sample TOOL: one run of the tool on its copy, as "wall cpu rss".
sample() {
  case $1 in
    plumb) "$work/benchrun" -plumbing "$work/tree-plumb" ;;
    status) "$work/benchrun" -C "$work/tree-status" -- git status --porcelain ;;
    ctxgit | base) "$work/benchrun" -C "$work/tree-$1" -- "$work/$1" checkpoint ;;
  esac
}

# change5: the 5 files replaced, with a line more, in every copy.
change5() {
  local tool f
  for tool in $tools; do
    while read -r f; do
      cp "$work/tree-$tool/$f" "$work/tree-$tool/$f.new"
      echo "// change $RANDOM" >> "$work/tree-$tool/$f.new"
      mv "$work/tree-$tool/$f.new" "$work/tree-$tool/$f"
    done < "$work/changes"
  done
}

declare -A S
record() { # case tool
  local r
  r=$(sample "$2")
  S[$1-$2]+="$r
"
}

echo "terraform v1.10.5 x$COPIES: $files files, $(nproc) cores; load average before: $(load)"
for tool in $tools; do record first "$tool"; done
# Files age past ctxgit's 2 s racy margin, as between real checkpoints.
sleep 2.2
for rep in $(seq "$REPS"); do
  for tool in $tools; do record noop "$tool"; done
  change5
  for tool in $tools; do record five "$tool"; done
done
gcs=$(cd "$work/tree-ctxgit" && GODEBUG=gctrace=1 "$work/ctxgit" checkpoint 2>&1 >/dev/null | grep -c '^gc ' || true)
# The live heap at its largest: one more, collecting often (GOGC=5 wins
# over ctxgit's own policy), and the largest live heap a collection
# reports ("A->B->C MB": C is what the collection found live).
live=$(cd "$work/tree-ctxgit" && GOGC=5 GODEBUG=gctrace=1 "$work/ctxgit" checkpoint 2>&1 >/dev/null |
  sed -n 's/.*->[0-9]*->\([0-9]*\) MB.*/\1/p' | sort -n | tail -1)
echo "load average after: $(load)"

# col CASE TOOL N: the Nth column (1 wall, 2 cpu, 3 rss) of each sample.
col() { printf '%s' "${S[$1-$2]}" | awk -v c="$3" 'NF {print $c}'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# paired CASE TOOL ANCHOR N: median (min-max) of TOOL/ANCHOR per sample.
paired() {
  paste <(col "$1" "$2" "$4") <(col "$1" "$3" "$4") | awk '{printf "%.3f\n", $1/$2}' | sort -g |
    awk '{a[NR]=$1} END {printf "%.2f (%.2f-%.2f)", a[int((NR+1)/2)], a[1], a[NR]}'
}
printf '\n%-6s %-7s %9s %9s %9s  %-18s %-18s %-18s %-18s %-18s\n' case tool wall_ms cpu_ms rss_MiB \
  "wall/plumb" "cpu/plumb" "rss/plumb" "wall/status" "rss/status"
for c in first noop five; do
  for tool in $tools; do
    w=$(col "$c" "$tool" 1 | median) u=$(col "$c" "$tool" 2 | median) m=$(col "$c" "$tool" 3 | median)
    printf '%-6s %-7s %9d %9d %9d' "$c" "$tool" $((w / 1000)) $((u / 1000)) $((m / 1024))
    case $tool in
      ctxgit | base)
        printf '  %-18s %-18s %-18s' "$(paired "$c" "$tool" plumb 1)" "$(paired "$c" "$tool" plumb 2)" "$(paired "$c" "$tool" plumb 3)"
        [ "$c" != first ] && printf ' %-18s %-18s' "$(paired "$c" "$tool" status 1)" "$(paired "$c" "$tool" status 3)"
        ;;
    esac
    echo
  done
done
echo "garbage collections in one more no-change checkpoint (GODEBUG=gctrace=1): $gcs"
echo "largest live heap of a no-change checkpoint (GOGC=5 GODEBUG=gctrace=1): ${live:-?} MB"
rm -rf "${work:?}"/tree-*
if [ -n "${CLEAN:-}" ]; then rm -rf "$tmpl"; fi
