#!/usr/bin/env bash
# Times `ctxgit checkpoint` against git's own plumbing doing the same
# snapshot on a private index (add -A, write-tree, commit-tree, update-ref),
# side by side in the same run: first snapshot, no change, and 5 files
# changed. Prints medians and ratios (ctxgit / git), with the spread of
# the paired ratios (min-max), the peak memory of ctxgit and of git's
# plumbing for each case, `git count-objects -v` before and after ctxgit's
# first snapshot, and, when more than one synthetic size is given, how the
# cost of an incremental checkpoint grows from the first size to the
# others.
#
# The no-change case is also timed against two floors (scripts/walkfloor,
# in the same alternation): a walk that reads every directory, lstats every
# entry and reads a stat cache ("floor"), and one that keeps directory
# mtimes and lists only changed directories, as git's untracked cache
# does ("ufloor").
#
# Workspaces: synthetic ones (SIZES, files:dirs, made by scripts/genws,
# committed with git fast-import), and real source trees from the Go
# module proxy (REAL); each is committed into a repository with a
# `.git/index` and packed with `git gc` before the copies are timed:
#   terraform  github.com/hashicorp/terraform@v1.10.5 (about 4,600 files)
#   oci        github.com/oracle/oci-go-sdk/v65@v65.78.0 (about 20,600 files)
#   history    terraform v1.5.0 … v1.10.5 committed one after another (7
#              commits), plus a branch of HISTORY_OBJECTS (default 500,000)
#              small distinct blobs made with git fast-import, all packed
#              by git gc into one pack of about 507,000 objects: a tree in
#              a repository with a large history pack
#
# BASE=<commit> also builds ctxgit at that commit and times it in the same
# alternation (git, ctxgit, base), adding its median and ratio to git as
# columns: what a change was worth, measured in one run.
#
# HOOKS (default 1; 0 skips) then runs the tool-call hook against its Go
# stat-one-file anchor: `ONLY=toolcall scripts/bench-hooks.sh`, with
# ROUNDS=${HOOK_ROUNDS:-5} TOOLCALLS=${HOOK_TOOLCALLS:-20} (issue 27).
#
# BIGFILE_MB (default 600; 0 skips) adds a checkpoint of one sparse file of
# that size with snapshot.max_file_size: 0, reporting the peak memory of
# ctxgit and of `git add` for it (issue 13 item 15: it is streamed).
#
#   scripts/bench-snapshot.sh                            # all of the above
#   SIZES="10000:500 100000:5000" REAL= RUNS=3 scripts/bench-snapshot.sh
#   SIZES= REAL="terraform history" scripts/bench-snapshot.sh
#   SIZES="20000:1000 100000:5000" REAL=terraform BIGFILE_MB=0 scripts/bench-snapshot.sh   # issue 27
#
# The machine may be shared: compare ratios from one run, not times across
# runs.
set -euo pipefail
SIZES=${SIZES-${FILES:-10000}:${DIRS:-500}}
REAL=${REAL-terraform oci history}
RUNS=${RUNS:-3}
# Samples of the cheap cases per run: their medians need more than one.
REPS=${REPS:-10}
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxgit" ./cmd/ctxgit
go build -o "$work/walkfloor" ./scripts/walkfloor
tools="git ctxgit"
if [ -n "${BASE:-}" ]; then
  mkdir -p "$work/base-src"
  git archive "$BASE" | tar -x -C "$work/base-src"
  (cd "$work/base-src" && go build -o "$work/base" ./cmd/ctxgit)
  tools="git ctxgit base"
fi
# The module cache stays the user's (the real trees come from it), not
# one under the HOME set here.
GOMODCACHE=$(go env GOMODCACHE)
export GOMODCACHE GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a/b}'; }

git_snapshot() { # dir
  ( cd "$1" && export GIT_INDEX_FILE="$1/.git/bench-index"
    git add -A && t=$(git write-tree) && c=$(echo snap | git commit-tree "$t") && git update-ref refs/bench/snap "$c" )
}
ctxgit_snapshot() { ( cd "$1" && "$work/${2:-ctxgit}" checkpoint >/dev/null 2>&1 ) }
# The floors walk the ctxgit copy (they only read it), each with a cache
# of its own beside it.
floor_walk() { "$work/walkfloor" -cache "$1.floorcache" "$1" >/dev/null; }
ufloor_walk() { "$work/walkfloor" -untracked -cache "$1.ufloorcache" "$1" >/dev/null; }
# Peak resident memory (KiB) of a checkpoint, from the kernel's rusage.
ctxgit_peak() { ( cd "$1" && /usr/bin/time -f %M -o "$work/peak" "$work/ctxgit" checkpoint >/dev/null 2>&1 ) && cat "$work/peak"; }
# The same for git's plumbing: the largest of its processes (rusage of
# the waited-for children).
git_peak() { /usr/bin/time -f %M -o "$work/peak" bash -c "$(declare -f git_snapshot); git_snapshot '$1'" && cat "$work/peak"; }

# change5 appends a line to the 5 files listed in $work/changes-<label>.
change5() { # dir label
  while read -r f; do echo "change $RANDOM" >> "$1/$f"; done < "$work/changes-$2"
}

# module_dir prints the directory of a module version in the module cache,
# downloading it through the Go module proxy if needed.
module_dir() { # module@version
  ( cd "$work" && go mod download -json "$1" ) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# copy_module replaces a worktree's files (not .git) with a module's.
copy_module() { # module@version dest
  local src
  src=$(module_dir "$1")
  [ -n "$src" ] || { echo "bench-snapshot: cannot download $1" >&2; exit 1; }
  find "$2" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
  cp -r "$src/." "$2"
  chmod -R u+w "$2"
}

# prepare makes $work/template-<label>: a repository whose worktree is the
# workspace to time, and $work/changes-<label>: the 5 files to change.
prepare() { # label
  local t="$work/template-$1" v
  rm -rf "$t"
  mkdir -p "$t"
  case $1 in
    synthetic-*)
      local s=${1#synthetic-}
      go run ./scripts/genws -out "$t" -files "${s%%:*}" -dirs "${s##*:}"
      git init -q "$t"
      # git add of 100,000 files writes as many loose objects (minutes
      # on this machine); fast-import writes one pack, and reset makes
      # the index from it.
      (cd "$t" && git ls-files -o --exclude-standard -z | perl -0 -e '
        print "commit ", $ARGV[0], "\ncommitter b <b\@b> 0 +0000\ndata 9\nsynthetic\n";
        while (my $p = <STDIN>) {
          chomp $p; open(my $f, "<", $p) or die "$p: $!"; local $/; my $c = <$f>; close $f;
          print "M 100644 inline $p\ndata ", length($c), "\n", $c, "\n";
        }' "$(git symbolic-ref HEAD)" | git fast-import --quiet && git reset -q)
      (cd "$t" && for i in 1 2 3 4 5; do find src -name "file0000$i.go" | head -1; done) > "$work/changes-$1"
      git -C "$t" gc -q
      return ;;
    terraform)
      git init -q "$t"; copy_module github.com/hashicorp/terraform@v1.10.5 "$t"
      (cd "$t" && git add -A && git -c gc.auto=0 commit -q -m v1.10.5) ;;
    oci)
      git init -q "$t"; copy_module github.com/oracle/oci-go-sdk/v65@v65.78.0 "$t"
      (cd "$t" && git add -A && git -c gc.auto=0 commit -q -m v65.78.0) ;;
    history)
      git init -q "$t"
      for v in v1.5.0 v1.6.0 v1.7.0 v1.8.0 v1.9.0 v1.10.0 v1.10.5; do
        copy_module "github.com/hashicorp/terraform@$v" "$t"
        (cd "$t" && git add -A && git -c gc.auto=0 commit -q -m "$v")
      done
      # The module proxy has no repository histories; their size is what
      # costs (object lookups in a large pack index), so a branch of
      # distinct small blobs stands in for the rest of one.
      awk -v n="${HISTORY_OBJECTS:-500000}" 'BEGIN {
        for (i = 1; i <= n; i++) { d = "synthetic history object " i "\n"; printf "blob\nmark :%d\ndata %d\n%s\n", i, length(d), d }
        printf "commit refs/heads/history\nmark :%d\ncommitter b <b@b> 0 +0000\ndata 5\nhist\n", n + 1
        for (i = 1; i <= n; i++) printf "M 100644 :%d h/d%03d/f%07d\n", i, i % 1000, i
        print ""
      }' | git -C "$t" fast-import --quiet ;;
    *) echo "bench-snapshot: unknown tree $1" >&2; exit 2 ;;
  esac
  git -C "$t" gc -q
  # Five tracked Go files spread over the tree.
  git -C "$t" ls-files '*.go' | awk 'NR % 401 == 7 && n++ < 5' > "$work/changes-$1"
}

declare -A T
bench() { # label
  local l=$1 run tool d t0 t1 t2 t3 t4 rep c
  prepare "$l"
  for run in $(seq "$RUNS"); do
    for tool in $tools; do
      d="$work/$tool-$run"
      rm -rf "$d"
      cp -a "$work/template-$l" "$d"
    done
    sync
    git -C "$work/ctxgit-$run" count-objects -v > "$work/count-before-$l"
    t0=$(ms); T[$l-gitpeak-first]+="$(git_peak "$work/git-$run") "; t1=$(ms)
    T[$l-git-first]+="$((t1-t0)) "
    # The first snapshot is timed under /usr/bin/time for its peak
    # memory; a fork and exec more is nothing against its hundreds of ms.
    t0=$(ms); T[$l-peak-first]+="$(ctxgit_peak "$work/ctxgit-$run") "; t1=$(ms)
    T[$l-ctxgit-first]+="$((t1-t0)) "
    if [ -n "${BASE:-}" ]; then
      t0=$(ms); ctxgit_snapshot "$work/base-$run" base; t1=$(ms)
      T[$l-base-first]+="$((t1-t0)) "
    fi
    git -C "$work/ctxgit-$run" count-objects -v > "$work/count-after-$l"
    # The floors' caches, made once before the samples.
    rm -f "$work/ctxgit-$run".*cache
    floor_walk "$work/ctxgit-$run"; ufloor_walk "$work/ctxgit-$run"
    # Let the first snapshot's files age past ctxgit's 2 s racy margin, as
    # they would between two real checkpoints.
    sleep 2.2
    # Samples alternate between the tools, so both see the same noise; the
    # paired ratios are kept too.
    for rep in $(seq "$REPS"); do
      for c in noop five; do
        if [ "$c" = five ]; then for tool in $tools; do change5 "$work/$tool-$run" "$l"; done; fi
        t0=$(ms); git_snapshot "$work/git-$run"; t1=$(ms)
        ctxgit_snapshot "$work/ctxgit-$run"; t2=$(ms)
        T[$l-git-$c]+="$((t1-t0)) "; T[$l-ctxgit-$c]+="$((t2-t1)) "
        T[$l-pair-$c]+="$(ratio $((t2-t1)) $((t1-t0))) "
        if [ "$c" = noop ]; then
          floor_walk "$work/ctxgit-$run"; t3=$(ms)
          ufloor_walk "$work/ctxgit-$run"; t4=$(ms)
          T[$l-floor-noop]+="$((t3-t2)) "; T[$l-ufloor-noop]+="$((t4-t3)) "
          T[$l-fpair-noop]+="$(ratio $((t2-t1)) $((t3-t2))) "
          T[$l-upair-noop]+="$(ratio $((t2-t1)) $((t4-t3))) "
        fi
        if [ -n "${BASE:-}" ]; then
          t0=$(ms); ctxgit_snapshot "$work/base-$run" base; t1=$(ms)
          T[$l-base-$c]+="$((t1-t0)) "
        fi
      done
    done
    # Peak memory of the incremental cases, outside the timed samples.
    T[$l-peak-noop]+="$(ctxgit_peak "$work/ctxgit-$run") "
    T[$l-gitpeak-noop]+="$(git_peak "$work/git-$run") "
    change5 "$work/ctxgit-$run" "$l"; change5 "$work/git-$run" "$l"
    T[$l-peak-five]+="$(ctxgit_peak "$work/ctxgit-$run") "
    T[$l-gitpeak-five]+="$(git_peak "$work/git-$run") "
    rm -rf "$work/git-$run" "$work/ctxgit-$run" "$work/base-$run" "$work/ctxgit-$run".*cache
  done
}

m() { echo "${T[$1]}" | tr ' ' '\n' | grep . | median; }
# spread: min-max of a series.
spread() { echo "${T[$1]}" | tr ' ' '\n' | grep . | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s", lo, hi}'; }
mib() { echo "${T[$1]}" | tr ' ' '\n' | grep . | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}'; }
report() { # label description first-target
  local l=$1 c g x pr peak gpeak target
  printf '\nworkspace: %s, %s runs x %s samples, %s cores\n' "$2" "$RUNS" "$REPS" "$(nproc)"
  printf '%-8s %10s %10s %8s %20s %8s %12s %12s %10s' case git_ms ctxgit_ms ratio paired_ratio target ctxgit_MiB git_MiB mem_ratio
  [ -n "${BASE:-}" ] && printf ' %10s %10s' base_ms base_ratio
  echo
  for c in first noop five; do
    g=$(m "$l-git-$c")
    x=$(m "$l-ctxgit-$c")
    pr=-
    [ "$c" != first ] && pr="$(m "$l-pair-$c") ($(spread "$l-pair-$c"))"
    peak=$(mib "$l-peak-$c") gpeak=$(mib "$l-gitpeak-$c")
    case $c in first) target=$3;; *) target=1.00;; esac
    printf '%-8s %10s %10s %8s %20s %8s %12s %12s %10s' "$c" "$g" "$x" "$(ratio "$x" "$g")" "$pr" "$target" "$peak" "$gpeak" "$(ratio "$peak" "$gpeak")"
    [ -n "${BASE:-}" ] && printf ' %10s %10s' "$(m "$l-base-$c")" "$(ratio "$(m "$l-base-$c")" "$g")"
    echo
  done
  printf 'no change against the floors: floor %s ms, ctxgit/floor %s (%s); untracked-cache floor %s ms, ctxgit/ufloor %s (%s)\n' \
    "$(m "$l-floor-noop")" "$(m "$l-fpair-noop")" "$(spread "$l-fpair-noop")" \
    "$(m "$l-ufloor-noop")" "$(m "$l-upair-noop")" "$(spread "$l-upair-noop")"
  echo "git count-objects -v before and after ctxgit's first snapshot (last run):"
  paste "$work/count-before-$l" "$work/count-after-$l" | awk -F'\t' '{split($1, a, ": "); split($2, b, ": "); printf "  %-16s %10s -> %s\n", a[1] ":", a[2], b[2]}'
}

first=
for s in $SIZES; do
  files=${s%%:*} dirs=${s##*:}
  [ -n "$first" ] || first=$files
  bench "synthetic-$s"
  T[$files-ctxgit-five]=${T[synthetic-$s-ctxgit-five]} T[$files-git-five]=${T[synthetic-$s-git-five]}
  report "synthetic-$s" "$files files in $dirs directories (+1000 ignored), one commit, packed" 0.70
done
if [ -n "$first" ] && [ "$first" != "$files" ]; then
  printf '\ngrowth of an incremental checkpoint (5 files changed), %s files -> others (goal ≤ 12.0 at 10x the files):\n' "$first"
  for s in $SIZES; do
    files=${s%%:*}
    [ "$files" = "$first" ] && continue
    printf '  %s files: ctxgit %s (%s -> %s ms), git %s (%s -> %s ms)\n' "$files" \
      "$(ratio "$(m "$files-ctxgit-five")" "$(m "$first-ctxgit-five")")" "$(m "$first-ctxgit-five")" "$(m "$files-ctxgit-five")" \
      "$(ratio "$(m "$files-git-five")" "$(m "$first-git-five")")" "$(m "$first-git-five")" "$(m "$files-git-five")"
  done
fi
for l in $REAL; do
  bench "$l"
  t="$work/template-$l"
  report "$l" "$l: $(git -C "$t" ls-files | wc -l) files in $(git -C "$t" ls-files | sed 's|/[^/]*$||' | sort -u | wc -l) directories, $(git -C "$t" rev-list --count HEAD) commit(s), pack of $(git -C "$t" count-objects -v | sed -n 's/^in-pack: //p') objects" 1.00
done
if [ "${BIGFILE_MB:-600}" != 0 ]; then
  d="$work/bigfile"
  mkdir -p "$d/.ctxgit"
  git init -q "$d"
  truncate -s "${BIGFILE_MB:-600}M" "$d/big.bin"
  printf 'snapshot:\n  max_file_size: 0\n' > "$d/.ctxgit/config.yaml"
  peak=$(ctxgit_peak "$d")
  git -C "$d" cat-file -e "$(git -C "$d" hash-object big.bin)" || { echo "bench-snapshot: the big file is not in the store" >&2; exit 1; }
  rm -rf "$d/.git/objects/"??
  ( cd "$d" && /usr/bin/time -f %M -o "$work/peak-git" git add big.bin )
  printf '\none sparse file of %s MiB, snapshot.max_file_size: 0: ctxgit checkpoint peak %s MiB, git add peak %s MiB\n' \
    "${BIGFILE_MB:-600}" "$((peak / 1024))" "$(($(cat "$work/peak-git") / 1024))"
fi
if [ "${HOOKS:-1}" != 0 ]; then
  printf '\nthe tool-call hook as installed against the Go stat-one-file anchor (scripts/bench-hooks.sh):\n'
  ONLY=toolcall ROUNDS=${HOOK_ROUNDS:-5} TOOLCALLS=${HOOK_TOOLCALLS:-20} "$repo/scripts/bench-hooks.sh"
fi
