#!/usr/bin/env bash
# scripts/wine-run.sh against a stand-in `wine` (no Wine needed): a program that dies printing nothing, or
# with Wine's "wine client error", is run once more and the reason is said on stderr; a program that fails with
# a message, or succeeds, runs once and its output, message and status pass through unchanged.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/prefix"
touch "$work/prefix/.ossa-ready"
# wine MODE: the mode's behaviour on the first run (counted in $work/runs), success printing "ran" after.
cat >"$work/bin/wine" <<'STUB'
#!/usr/bin/env bash
runs="$STUB_DIR/runs"
n=$(($(cat "$runs" 2>/dev/null || echo 0) + 1))
echo "$n" >"$runs"
if [ "$n" -eq 1 ]; then
  case "$1" in
    silent) exit 3 ;;
    client) echo "wine client error:1234: recvmsg: Connection reset by peer" >&2; exit 1 ;;
    message) echo "bad input" >&2; exit 1 ;;
    output) echo "[  FAILED  ] a test"; exit 1 ;;
  esac
fi
echo "ran $1"
STUB
printf '#!/bin/sh\nexit 0\n' >"$work/bin/wineserver"
chmod +x "$work/bin/wine" "$work/bin/wineserver"
export PATH="$work/bin:$PATH" OSSA_WINEPREFIX="$work/prefix" STUB_DIR="$work"
failures=0
check() {  # MODE EXPECTED_STATUS EXPECTED_RUNS STDOUT STDERR_PATTERN ("": stderr empty)
  rm -f "$work/runs"
  local status=0
  "$root/scripts/wine-run.sh" "$1" >"$work/out" 2>"$work/err" || status=$?
  local runs
  runs=$(cat "$work/runs")
  if [ "$status" -ne "$2" ] || [ "$runs" -ne "$3" ] || [ "$(cat "$work/out")" != "$4" ] ||
    { [ -n "$5" ] && ! grep -q -- "$5" "$work/err"; } || { [ -z "$5" ] && [ -s "$work/err" ]; }; then
    echo "FAIL $1: status $status (want $2), runs $runs (want $3), stdout '$(cat "$work/out")' (want '$4')," \
      "stderr '$(cat "$work/err")' (want /$5/)" >&2
    failures=$((failures + 1))
  else
    echo "ok $1: status $status after $runs run(s)"
  fi
}
check silent 0 2 "ran silent" "silent exited with status 3 and printed nothing; running again"
check client 0 2 "ran client" "Wine lost its server connection"
check message 1 1 "" "^bad input$"
check output 1 1 "[  FAILED  ] a test" ""
exit $((failures > 0))
