#!/usr/bin/env bash
# Cross-compiles ctxgit, ctxgit-hook (the small tool-call hook that
# `ctxgit init --host` installs when it finds it beside ctxgit) and
# ctxgit-mcp (the MCP server `ctxgit mcp` hands over to, beside ctxgit) for
# the six release targets into dist/, each
# stamped with its version, commit and build date, as one archive per
# target (tar.gz; zip for Windows) and SHA256SUMS over them. Then checks
# the sums and that the binary for this machine prints its stamp.
#
#   VERSION=v0.2.0 scripts/dist.sh     # default: git describe
#
# The date is the commit's (UTC), so two runs on one commit give the same
# binaries (-trimpath, no cgo).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)}
commit=$(git rev-parse --short=12 HEAD)
date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
ldflags="-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date"
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

rm -rf dist
mkdir -p dist
for target in $targets; do
  os=${target%/*} arch=${target#*/}
  name=ctxgit_${version}_${os}_${arch}
  stage=dist/$name
  mkdir -p "$stage"
  ext=
  [ "$os" = windows ] && ext=.exe
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$stage/ctxgit$ext" ./cmd/ctxgit
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" -o "$stage/ctxgit-hook$ext" ./cmd/ctxgit-hook
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" -o "$stage/ctxgit-mcp$ext" ./cmd/ctxgit-mcp
  cp README.md "$stage/"
  if [ "$os" = windows ]; then
    # python3's zipfile: no zip(1) needed on the machine.
    (cd dist && python3 -m zipfile -c "$name.zip" "$name")
  else
    tar -C dist -czf "dist/$name.tar.gz" --owner=0 --group=0 --numeric-owner "$name"
  fi
  echo "dist/$name.$([ "$os" = windows ] && echo zip || echo tar.gz)"
done

(cd dist && sha256sum ctxgit_*.tar.gz ctxgit_*.zip > SHA256SUMS && sha256sum --quiet -c SHA256SUMS)

# The binary for this machine runs and carries the stamp.
host=dist/ctxgit_${version}_$(go env GOOS)_$(go env GOARCH)
if [ -x "$host/ctxgit" ]; then
  [ -x "$host/ctxgit-mcp" ] || { echo "dist: $host has no ctxgit-mcp" >&2; exit 1; }
  [ -x "$host/ctxgit-hook" ] || { echo "dist: $host has no ctxgit-hook" >&2; exit 1; }
  out=$("$host/ctxgit" version)
  case $out in
    "ctxgit $version ($commit, $date) (spec "*")") echo "$out" ;;
    *) echo "dist: $host/ctxgit version printed: $out" >&2; exit 1 ;;
  esac
fi
# Only the archives and sums stay.
for target in $targets; do rm -rf "dist/ctxgit_${version}_${target%/*}_${target#*/}"; done
