#!/usr/bin/env bash
# Times an `ossa` CLI on SECURITY.md's amplifying inputs (tests/write_amplifying_ossa.cpp writes them): wall
# time and peak memory per command, each under a time limit. Compare two builds to see a fix:
#   scripts/hostile-amplification.sh [OSSA_CLI] [WRITER]   (defaults: build/release/ossa and its
#                                                          tests/ossa_write_amplifying_ossa)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${1:-$here/build/release/ossa}"
writer="${2:-$(dirname "$cli")/tests/ossa_write_amplifying_ossa}"
work="$here/build/amplification"
rm -rf "$work" && mkdir -p "$work"
"$writer" "$work"
# Peak resident memory from the kernel's accounting of the child (GNU time is not on a minimal Debian).
measure() {  # LABEL COMMAND...
  local label="$1" start status
  shift
  start=$(date +%s%N)
  status=0
  timeout 300 "$@" >"$work/out.txt" 2>&1 &
  local pid=$! peak=0 rss
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(ps -o rss= --ppid "$pid" 2>/dev/null | sort -n | tail -1 || true)
    [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
    sleep 0.05
  done
  wait "$pid" || status=$?
  local ms=$((($(date +%s%N) - start) / 1000000))
  printf '%-46s %5d.%03d s  peak %6d MB  exit %d%s\n' "$label" $((ms / 1000)) $((ms % 1000)) \
    $((peak / 1024)) "$status" "$([ "$status" = 124 ] && echo ' (killed at 300 s)')"
}
measure "info segments.ossa (8 x 2^23 empty segments)" "$cli" info "$work/segments.ossa"
measure "info weights.ossa (250k keys x 1,024 targets)" "$cli" info "$work/weights.ossa"
measure "play notifies.ossa, 10 steps of 1 s" "$cli" play "$work/notifies.ossa" --clip short --steps 10 --dt 1
