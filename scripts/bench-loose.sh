#!/usr/bin/env bash
# Loose objects after many checkpoints (issue 27 item 3): a committed
# project of 200 files, CHECKPOINTS checkpoints each after a small change
# (one file edited, as a hook's checkpoints between tool calls find it),
# then `git count-objects -v`, the packs ctxgit made, and `git fsck`.
# Goal: fewer than 1,000 loose objects after 1,000 checkpoints, git's
# gc.auto (6,700) never reached. Also times a no-op checkpoint and counts
# what it wrote.
#
#   scripts/bench-loose.sh                      # 1,000 checkpoints, a few minutes
#   CHECKPOINTS=200 scripts/bench-loose.sh
#   BASE=<commit> scripts/bench-loose.sh        # the same with ctxgit at BASE, for comparison
set -euo pipefail
CHECKPOINTS=${CHECKPOINTS:-1000}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${BASE:-}" ]; then
  mkdir "$work/src"
  git archive "$BASE" | tar -x -C "$work/src"
  (cd "$work/src" && go build -o "$work/ctxgit" ./cmd/ctxgit)
else
  go build -o "$work/ctxgit" ./cmd/ctxgit
fi
ctxgit=$work/ctxgit
export GIT_CONFIG_NOSYSTEM=1 HOME="$work/home" GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"
repo=$work/repo
mkdir -p "$repo/src"
cd "$repo"
git init -q .
for i in $(seq 200); do printf 'package p\n\n// file %d\n' "$i" > "src/f$i.go"; done
git add -A && git commit -qm 'project' && git gc -q
"$ctxgit" init >/dev/null
echo "taking $CHECKPOINTS checkpoints${BASE:+ with ctxgit at $BASE}..." >&2
start=$(date +%s)
for i in $(seq "$CHECKPOINTS"); do
  echo "// change $i" >> "src/f$(( i % 200 + 1 )).go"
  "$ctxgit" checkpoint >/dev/null
done
end=$(date +%s)
echo "$CHECKPOINTS checkpoints in $(( end - start )) s"
echo "checkpoints on the chain: $(git rev-list --count refs/ctxgit/sessions/default)"
echo "git count-objects -v:"
git count-objects -v | sed 's/^/  /'
echo "packs: $(ls .git/objects/pack/*.pack 2>/dev/null | wc -l)"
git fsck --strict --no-dangling --no-progress && echo "git fsck: clean"

# A no-op checkpoint: what it writes (objects, refs) and its time.
before=$(git count-objects -v | tr '\n' ' ')
head=$(git rev-parse refs/ctxgit/sessions/default)
"$ctxgit" checkpoint
after=$(git count-objects -v | tr '\n' ' ')
if [ "$before" = "$after" ] && [ "$head" = "$(git rev-parse refs/ctxgit/sessions/default)" ]; then
  echo "no-op checkpoint: no object, no ref move"
else
  echo "no-op checkpoint: wrote objects or moved the ref"
  echo "  before: $before"
  echo "  after:  $after"
fi
