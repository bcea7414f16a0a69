#!/usr/bin/env bash
# Runs a Windows program under Wine, for ctest and gtest_discover_tests (CMAKE_CROSSCOMPILING_EMULATOR of
# cmake/toolchains/x86_64-w64-mingw32.cmake) or by hand: scripts/wine-run.sh build/windows/prog.exe ARGS.
# Direct3D 11 needs an X server: run inside one (xvfb-run -a ...), then scripts/wine-run.sh --stop.
# The program's stdout, stderr and exit status are passed through; Wine's own messages are not.
#
# The Wine prefix (~700 MB) is Ossa's own: $OSSA_WINEPREFIX, default ${XDG_CACHE_HOME:-~/.cache}/ossa-wine.
# It is created on first use (~15 s), under a lock so that parallel tests do not all create it.
set -euo pipefail
export WINEPREFIX="${OSSA_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/ossa-wine}"
export WINEDEBUG=-all                 # no fixme/err lines (and no "wine32 is missing" hint from Debian's wine)
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono/Gecko install prompts when the prefix is made

if [ ! -f "$WINEPREFIX/.ossa-ready" ]; then
  mkdir -p "$(dirname "$WINEPREFIX")"
  (
    flock 9
    if [ ! -f "$WINEPREFIX/.ossa-ready" ]; then
      # wineboot's chatter goes to a log inside the prefix (kept for when creation fails).
      mkdir -p "$WINEPREFIX"
      if ! { wineboot -i && wineserver -w; } >"$WINEPREFIX/ossa-create.log" 2>&1; then
        echo "wine-run: creating the Wine prefix $WINEPREFIX failed:" >&2
        cat "$WINEPREFIX/ossa-create.log" >&2
        exit 1
      fi
      touch "$WINEPREFIX/.ossa-ready"
    fi
  ) 9>"$WINEPREFIX.lock"
fi

# --stop: ends this prefix's wineserver and waits for it to be gone (it lingers a few seconds after the last
# program, which keeps an X server such as xvfb-run's from exiting). Run it before tests too: a server left
# by the build (which runs the test programs to list their tests) has no display, and programs that join it
# find no Direct3D 11 adapter.
if [ "${1:-}" = --stop ]; then
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true
  exit 0
fi
# --without-display PROGRAM ARGS: runs it as on a machine with no X server. Wine's programs share the display
# connection of the prefix's running wineserver, so the server is ended before and after: only for a test
# that runs alone (ctest RUN_SERIAL).
if [ "${1:-}" = --without-display ]; then
  shift
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true
  status=0
  env -u DISPLAY -u WAYLAND_DISPLAY wine "$@" || status=$?
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true
  exit $status
fi
# A program that starts while the previous wineserver is exiting (it lingers a few seconds after its last
# client, then quits) can lose its connection: Wine prints "wine client error:...: recvmsg: Connection reset
# by peer" and the program dies before or during its run, or it dies printing nothing at all (seen once in a
# few hundred runs: a test that ended in 0.1 s with no output and a failing status). Either is Wine's race, not
# the program's failure (every program run here prints something when it fails: gtest its report, ossa.exe
# its message): say so, wait for the old server to be gone and run it once more. Output is held until the run
# ends to see it.
out=$(mktemp)
errors=$(mktemp)
trap 'rm -f "$out" "$errors"' EXIT
for attempt in 1 2; do
  status=0
  wine "$@" >"$out" 2>"$errors" || status=$?
  if [ "$status" -ne 0 ] && [ "$attempt" -eq 1 ]; then
    why=""
    if grep -q '^wine client error:' "$errors"; then
      why="Wine lost its server connection ($(grep -m1 '^wine client error:' "$errors"))"
    elif [ ! -s "$out" ] && [ ! -s "$errors" ]; then
      why="$1 exited with status $status and printed nothing"
    fi
    if [ -n "$why" ]; then
      echo "wine-run: $why; running again" >&2
      wineserver -w 2>/dev/null || true
      continue
    fi
  fi
  cat "$out"
  cat "$errors" >&2
  exit "$status"
done
