#!/usr/bin/env bash
# The Windows tier (CONTRIBUTING.md, "The Windows tier under Wine"): the
# Windows build, run. Under Debian's Wine (wine64 8.0) it
#
#   1. prepares a fresh Wine prefix and puts into its system32 a stand-in
#      bcryptprimitives.dll built from scripts/wine/bcryptprimitives.c
#      (Wine 8.0 lacks the DLL, which Go's Windows runtime needs before
#      main; see that file);
#   2. builds ctxgit.exe, ctxgit-hook.exe and ctxgit-mcp.exe and runs
#      acceptance scripts with them (TestWindowsUnderWine: testdata/wine
#      and the scripts testdata/wine/scripts.txt lists; every ctxgit line
#      is ctxgit.exe, git on this machine checks);
#   3. runs the Windows test binaries of the packages below under Wine
#      (go test -exec).
#
# Wine's own gap, worked around here and nowhere else: Wine 8.0 answers
# NtSetInformationFile's FileDispositionInformationEx with
# STATUS_NOT_IMPLEMENTED, where Windows before 10 1607 answers
# STATUS_INVALID_INFO_CLASS; Go's os.RemoveAll (internal/syscall/windows,
# Deleteat) falls back to the older call only on the statuses real
# Windows gives, so every t.TempDir cleanup would fail with "unlinkat …:
# Invalid function". The test binaries (not the shipped programs) are
# built with an -overlay of that one Go source file that adds Wine's
# status to the fallback's list; the overlay is made from this Go's own
# file, and the tier stops if the line it edits is not there.
#
# Needs wine64, wine64-preloader and gcc-mingw-w64-x86-64 (.ci/run
# installs them). About 8 minutes on the project's 2-core machine.
#
#   scripts/wine.sh                      # all of it
#   CTXGIT_WINE_PKGS='./markdown' scripts/wine.sh   # other packages
set -euo pipefail
cd "$(dirname "$0")/.."

wine=${WINE:-$(command -v wine64 || echo /usr/lib/wine/wine64)}
wineserver=$(dirname "$(readlink -f "$wine")")/wineserver
# (Unfound, its name stays, for the check below to name; a failed
# assignment would end the script here without a word, under set -e.)
[ -x "$wineserver" ] || wineserver=$(command -v wineserver || echo wineserver)
# Wine's preloader, which Debian packs apart (wine64 only suggests it):
# wine64 starts every program through it when it is beside it, and it
# reserves the addresses Wine needs before anything else is mapped.
# Without it Linux may start wine64's heap (brk, anywhere in a gigabyte
# above wine64 at 0x7d000000) over 0x7ffe0000, where each program maps
# Windows' shared user data: about once in 4,000 starts the program
# never runs ("wine: failed to map the shared user data: c0000018") and
# wine exits 1, a script line failing at random once in a few tiers.
preloader=$(dirname "$(readlink -f "$wine")")/wine64-preloader
for tool in "$wine" "$wineserver" "$preloader" x86_64-w64-mingw32-gcc; do
  command -v "$tool" >/dev/null || { echo "wine.sh: $tool is missing (apt-get install wine64 wine64-preloader gcc-mingw-w64-x86-64)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxgit-wine.XXXXXX")
# Wine's own errors (err:) are shown, its fixme and trace lines are not:
# a program Wine fails to start then says why.
export WINEPREFIX=$work/prefix WINEDEBUG=-all,err+all
# No Mono or Gecko: nothing here is .NET or HTML, and Wine would offer to
# download them.
export WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
  "$wineserver" -k 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "-- the Wine prefix"
start=$SECONDS
# One server for the whole tier (-p: it stays until cleanup's -k), and
# Wine's own system processes (services.exe, winedevice.exe, …) started
# once, here, by wineboot with their output to its log: a system process
# started by a test binary's wine inherits the test's stdout and holds it
# open after the test exits ("Test I/O incomplete", go test's WaitDelay).
mkdir "$WINEPREFIX"
"$wineserver" -p
"$wine" wineboot --init >"$work/wineboot.log" 2>&1 || { cat "$work/wineboot.log" >&2; exit 1; }
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  scripts/wine/bcryptprimitives.c -ladvapi32
echo "prefix ready in $((SECONDS - start)) s"

echo "-- the Windows binaries"
GOOS=windows GOARCH=amd64 go build -o "$work/bin/" ./cmd/ctxgit ./cmd/ctxgit-hook ./cmd/ctxgit-mcp
"$wine" "$work/bin/ctxgit.exe" version

echo "-- the acceptance scripts against ctxgit.exe (testdata/wine)"
CTXGIT_WINE=$wine CTXGIT_WINE_BIN=$work/bin go test -count=1 -run 'TestWindowsUnderWine' ./cmd/ctxgit

echo "-- the Windows test binaries under Wine"
src=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
line=$'\t\tSTATUS_NOT_SUPPORTED:     // the file system'
grep -qF "$line" "$src" || { echo "wine.sh: $src has changed: the Deleteat overlay needs a new look" >&2; exit 1; }
mkdir -p "$work/overlay"
sed "s|^$line|\t\tSTATUS_NOT_SUPPORTED, NTStatus(0xC0000002): // STATUS_NOT_IMPLEMENTED is Wine 8's answer (scripts/wine.sh). The file system|" \
  "$src" >"$work/overlay/at_windows.go"
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$work/overlay/at_windows.go" >"$work/overlay.json"
# Every package but cmd/ctxgit (its scripts start git and ctxgit thousands
# of times through a POSIX shell: the acceptance scripts above stand for
# them) and host/realhost (the real hosts are Linux programs from npm).
pkgs=${CTXGIT_WINE_PKGS:-$(go list ./... | grep -v -e '/cmd/ctxgit$' -e '/host/realhost$')}
# Left out: the tests that interrupt an operation at each of its
# cancellation points in turn (a restore, prune, doctor --fix, repack run
# again and again: quadratic, 10 minutes of Wine's file calls between
# them). What they check is the same code on every system; the Linux
# tiers run them.
skip='^(TestRestoreCancelled|TestPruneCancelled|TestDoctorFixCancelled|TestRepackCancelled)$'
# shellcheck disable=SC2086
# -parallel 4: a test under Wine mostly waits on Wine's server, so the
# parallel tests (TestHookPathEquivalence's four hosts) overlap.
GOOS=windows GOARCH=amd64 go test -overlay "$work/overlay.json" -exec "$wine" -count=1 -timeout 20m -parallel 4 -skip "$skip" $pkgs
