#!/usr/bin/env bash
# Times the hook no-op paths — a Cursor post-tool-use with no marker (no
# transcript reader, no pending recovery, no nudge), and a
# statusline below every threshold — side by side with `sh -c 'test -f
# FILE'`, in alternating batches, and prints medians (µs per call) and
# ratios. Goal: ≤ 2.5× (docs/PERFORMANCE.md). Also a post-tool-use that
# reads the gauge's usage from the tail of a 100 MB Claude Code transcript,
# against the post-tool-use no-op: goal ≤ 5×.
#
#   scripts/bench-hooks.sh            # 15 batches of 50 calls
#   BATCHES=30 CALLS=100 scripts/bench-hooks.sh
set -euo pipefail
BATCHES=${BATCHES:-15}
CALLS=${CALLS:-50}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxgit" ./cmd/ctxgit
go run ./scripts/genws -transcript "$work/transcript.jsonl" -transcript-mb 100
cd "$work" && mkdir ws && cd ws
git init -q . 2>/dev/null || true
"$work/ctxgit" init >/dev/null
echo '{"conversation_id":"bench","hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}' > ../pre.json
echo "{\"session_id\":\"bench\",\"transcript_path\":\"$work/transcript.jsonl\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}" > ../post.json
echo '{"session_id":"bench","context_window":{"context_window_size":200000,"current_usage":{"input_tokens":40000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}' > ../status.json

us() { echo $(( $(date +%s%N) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
batch() { # command...
  local t0 t1
  t0=$(us)
  for _ in $(seq "$CALLS"); do "$@"; done
  t1=$(us)
  echo $(( (t1 - t0) / CALLS ))
}
sh_test() { sh -c 'test -f ../pre.json'; }
pre_tool() { "$work/ctxgit" hook cursor post-tool-use < ../pre.json; }
post_tool() { "$work/ctxgit" hook claude-code post-tool-use < ../post.json; }
status() { "$work/ctxgit" statusline < ../status.json >/dev/null; }

declare -A T
for _ in $(seq "$BATCHES"); do
  T[sh]+="$(batch sh_test) "
  T[pre]+="$(batch pre_tool) "
  T[status]+="$(batch status) "
  T[post]+="$(batch post_tool) "
done
s=$(echo "${T[sh]}" | tr ' ' '\n' | grep . | median)
printf 'hook no-op paths, %s batches of %s calls, %s cores; median µs per call\n' "$BATCHES" "$CALLS" "$(nproc)"
printf '%-32s %8s %8s %8s\n' case us ratio goal
printf '%-32s %8s %8s %8s\n' "sh -c 'test -f FILE'" "$s" 1.00 -
for c in pre status; do
  v=$(echo "${T[$c]}" | tr ' ' '\n' | grep . | median)
  name="post-tool-use, no marker"; [ "$c" = status ] && name="statusline, below thresholds"
  printf '%-32s %8s %8s %8s\n' "$name" "$v" "$(awk -v a="$v" -v b="$s" 'BEGIN {printf "%.2f", a/b}')" 2.50
done
p=$(echo "${T[pre]}" | tr ' ' '\n' | grep . | median)
v=$(echo "${T[post]}" | tr ' ' '\n' | grep . | median)
printf '%-32s %8s %8s %8s  (against the no-op)\n' "post-tool-use, 100 MB transcript" "$v" "$(awk -v a="$v" -v b="$p" 'BEGIN {printf "%.2f", a/b}')" 5.00
if [ -f "$work/ctxgit" ]; then
  printf 'package init (GODEBUG=inittrace=1): %s ms\n' "$(GODEBUG=inittrace=1 "$work/ctxgit" hook cursor post-tool-use < ../pre.json 2>&1 | awk '{s+=$5} END {print s}')"
fi
