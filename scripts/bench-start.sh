#!/usr/bin/env bash
# Times what every ctxgit process pays before it does anything: `ctxgit
# version` and a hook's no-op (a Cursor post-tool-use with no marker, in a
# workspace after `ctxgit init`), each beside the same build with the MCP
# SDK linked back in (a blank import of mcpserver, added with go build
# -overlay: what ctxgit was before `ctxgit mcp` moved to ctxgit-mcp), all
# cases taking turns in every round (scripts/benchproc). Prints medians
# of wall and CPU time per call, their ratios, and the binaries' sizes
# (docs/PERFORMANCE.md, "The MCP server's own binary"). Goal: ctxgit
# within noise of a build without the MCP code (ratio 1.00 ± the spread
# of a run), i.e. the SDK-linked build's ratios are what ctxgit no longer
# pays. Also `ctxgit mcp` to its first answer and the end of input,
# against ctxgit-mcp run directly: the cost of the handover.
#
#   scripts/bench-start.sh                    # 20 rounds of 20 calls per case, about a minute
#   ROUNDS=40 CALLS=25 scripts/bench-start.sh
set -euo pipefail
ROUNDS=${ROUNDS:-20}
CALLS=${CALLS:-20}
cd "$(dirname "$0")/.."
repo=$(pwd -P)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/ctxgit" ./cmd/ctxgit
go build -o "$work/ctxgit-mcp" ./cmd/ctxgit-mcp
go build -o "$work/benchproc" ./scripts/benchproc
# The same ctxgit with the SDK linked, as it was: one more file in
# package main that imports mcpserver, given to the build as an overlay
# so the tree is not touched.
mkdir "$work/sdk"
printf 'package main\n\nimport _ "github.com/ctxgit/ctxgit/mcpserver"\n' > "$work/sdk/linkmcp.go"
printf '{"Replace":{"%s":"%s"}}\n' "$repo/cmd/ctxgit/zz_linkmcp_bench.go" "$work/sdk/linkmcp.go" > "$work/sdk/overlay.json"
go build -overlay "$work/sdk/overlay.json" -o "$work/sdk/ctxgit" ./cmd/ctxgit
if go version -m "$work/ctxgit" | grep -q modelcontextprotocol; then
  echo "bench-start: ctxgit links the MCP SDK" >&2
  exit 1
fi
go version -m "$work/sdk/ctxgit" | grep -q modelcontextprotocol

cd "$work" && mkdir ws && cd ws
git init -q . 2>/dev/null || true
"$work/ctxgit" init >/dev/null
: > ../empty
echo '{"conversation_id":"bench","hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}' > ../pre.json
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
} > ../mcp.jsonl
T=$(printf '\t')
cat > ../start.spec <<SPEC
ctxgit version${T}$work/empty${T}$work/ctxgit${T}version
ctxgit version, SDK linked${T}$work/empty${T}$work/sdk/ctxgit${T}version
hook cursor post-tool-use (no-op)${T}$work/pre.json${T}$work/ctxgit${T}hook${T}cursor${T}post-tool-use
hook cursor post-tool-use (no-op), SDK linked${T}$work/pre.json${T}$work/sdk/ctxgit${T}hook${T}cursor${T}post-tool-use
ctxgit mcp: initialize, end of input${T}$work/mcp.jsonl${T}$work/ctxgit${T}mcp
ctxgit-mcp run directly: the same${T}$work/mcp.jsonl${T}$work/ctxgit-mcp
SPEC
out=$("$work/benchproc" -rounds "$ROUNDS" -calls "$CALLS" ../start.spec)
printf 'process start, %s rounds of %s calls per case, %s cores\n' "$ROUNDS" "$CALLS" "$(nproc)"
echo "$out"
# The ratios that matter are pairwise: each case with the SDK linked over
# the same case without it, and the handover over ctxgit-mcp alone.
echo "$out" | awk '
  NR > 1 { name = $0; sub(/ +[0-9].*$/, "", name); wall[NR-1] = $(NF-4); cpu[NR-1] = $(NF-1); names[NR-1] = name }
  END {
    printf "%-46s %7s %7s\n", "pair", "wall", "cpu"
    printf "%-46s %7.2f %7.2f\n", "version: SDK linked / ctxgit", wall[2]/wall[1], cpu[2]/cpu[1]
    printf "%-46s %7.2f %7.2f\n", "hook no-op: SDK linked / ctxgit", wall[4]/wall[3], cpu[4]/cpu[3]
    printf "%-46s %7.2f %7.2f\n", "mcp: through ctxgit / ctxgit-mcp directly", wall[5]/wall[6], cpu[5]/cpu[6]
  }'
printf 'binary size (bytes): ctxgit %s; ctxgit, SDK linked %s; ctxgit-mcp %s\n' \
  "$(wc -c < "$work/ctxgit")" "$(wc -c < "$work/sdk/ctxgit")" "$(wc -c < "$work/ctxgit-mcp")"
