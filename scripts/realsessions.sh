#!/usr/bin/env bash
# Gathers real, public session files of four hosts into DIR, one
# directory per host (claude-code, codex, gemini, openclaw), for the
# real-session check (docs/HOSTS.md, "Transcripts", "Real sessions"):
#
#   scripts/realsessions.sh /tmp/realsessions
#   CTXGIT_REALSESSIONS=/tmp/realsessions go test -count=1 -run TestRealSessions -v ./host/hooks
#
# The files stay where their authors published them: each is fetched at
# a pinned commit, from a local mirror of the repository when one is at
# $CTXGIT_MIRRORS/OWNER+NAME/repo (a bare git directory), else from
# raw.githubusercontent.com. None is copied into this repository.
set -euo pipefail
dir=${1:?usage: scripts/realsessions.sh DIR}
mirrors=${CTXGIT_MIRRORS:-/work/.mirror}

# host  owner/name  commit  path  (licence)
sources=(
  # Claude Code 2.1.14 sessions recorded for a plugin's snapshot tests (MIT).
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/coverage-test-fix/transcript.jsonl"
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/hello-world-script/transcript.jsonl"
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/python-to-rust-port/transcript.jsonl"
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/stop-hook-fast-path-clean/transcript.jsonl"
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/stop-hook-reflection-first-stop/transcript.jsonl"
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/stop-hook-reflection-second-stop/transcript.jsonl"
  "claude-code DRMacIver/claude-reliability 4e49f16a86de76d9b0dc3ea2b8526677abe89f52 snapshot-tests/tests/stop-hook-uncommitted-changes/transcript.jsonl"
  # Smoke sessions of four agents, prompts and replies redacted (MIT).
  "claude-code kvsankar/agent-history 9a7a78b14383615fd05bfcf267d21b08e2349f3f tests/fixtures/real_sessions/claude/session-01.jsonl"
  "codex kvsankar/agent-history 9a7a78b14383615fd05bfcf267d21b08e2349f3f tests/fixtures/real_sessions/codex/session-01.jsonl"
  "gemini kvsankar/agent-history 0372c94b7242b2534d9942203caeb4df0c4a150a tests/fixtures/real_sessions/gemini/session-01.json"
  "openclaw kvsankar/agent-history e4fd4b6e60ecd5d39367f024fe08d5e76161cf54 tests/fixtures/real_sessions/pi/session-01.jsonl"
  # The first lines of a Codex CLI 0.77 session, before it was replaced by
  # a made-up one (Apache-2.0).
  "codex simonw/claude-code-transcripts 871966d66cca5ec1ba4c4372d056d7fd7b30bb12 tests/sample_codex_session.jsonl"
)

# The real Claude Code 2.1.39 session beside the repository (shared/
# fixtures: a public test fixture of marot/spotter), when it is there.
shared=${CTXGIT_SHARED:-$(dirname "$0")/../../shared/fixtures}
if [ -f "$shared/claude-code/real-session-with-compaction.jsonl" ]; then
  mkdir -p "$dir/claude-code"
  cp "$shared/claude-code/real-session-with-compaction.jsonl" "$dir/claude-code/marot_spotter__real-session-with-compaction.jsonl"
  echo "claude-code $(wc -c <"$shared/claude-code/real-session-with-compaction.jsonl") shared/fixtures/claude-code/real-session-with-compaction.jsonl"
fi

for s in "${sources[@]}"; do
  read -r host repo commit path <<<"$s"
  mkdir -p "$dir/$host"
  name=$(echo "${repo}__${path}" | tr '/' '_')
  out="$dir/$host/$name"
  git_dir="$mirrors/${repo/\//+}/repo"
  if [ -d "$git_dir" ] && git --git-dir="$git_dir" cat-file -e "$commit:$path" 2>/dev/null; then
    git --git-dir="$git_dir" show "$commit:$path" >"$out"
  elif curl -fsSL "https://raw.githubusercontent.com/$repo/$commit/$path" -o "$out.part"; then
    mv "$out.part" "$out"
  else
    rm -f "$out.part"
    echo "realsessions: could not fetch $repo@$commit:$path" >&2
    continue
  fi
  echo "$host $(wc -c <"$out") $repo@${commit:0:12}:$path"
done
