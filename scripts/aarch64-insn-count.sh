#!/usr/bin/env bash
# Instructions executed per character update (sample + local-to-model + palette) on aarch64, scalar kernels
# against NEON, counted by qemu-aarch64: the figure issue 16 tracks (goal: NEON <= 1/2.5 of scalar per joint).
#
# Usage: scripts/aarch64-insn-count.sh [FILE.ossa [CLIP]]   (default: the tests' 33-joint synthetic character)
# Needs the aarch64 preset built (scripts/bootstrap.sh aarch64). Deterministic: the same build and input give
# the same counts every run.
#
# How: Debian 12's qemu 7.2 has -plugin but ships no plugins (no libinsn.so), so the count comes from its
# log: -singlestep makes every guest instruction its own translation block and -d exec,nochain logs each
# block executed, i.e. one "Trace" line per instruction. ossa_runtime_bench --count-updates N runs start-up
# and then exactly N frames of 16 characters; counting N = 0 and N = 20 and subtracting leaves the updates'
# instructions alone (start-up, ~11 M instructions, cancels). Each run takes ~30-60 s (qemu writes ~1.7 GB
# of log into the pipe).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="$here/build/aarch64/tools/ossa_runtime_bench/ossa_runtime_bench"
[ -x "$bench" ] || { echo "aarch64-insn-count: $bench missing (scripts/bootstrap.sh aarch64)" >&2; exit 1; }
args=()
[ $# -ge 1 ] && args+=("$1")
[ $# -ge 2 ] && args+=(--clip "$2")
frames=20 characters=16

count() {  # instructions of one run: $1 = frames, $2 = scalar|best
  qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib -singlestep \
    -d exec,nochain -D /dev/stderr "$bench" "${args[@]}" --count-updates "$1" --simd "$2" 2>&1 >/dev/null |
    grep -c '^Trace'
}

joints=$(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib "$bench" \
  "${args[@]}" --count-updates 0 --simd scalar | sed -E 's/.*: ([0-9]+) joints.*/\1/')
declare -A per_joint
for level in scalar best; do
  base=$(count 0 "$level")
  run=$(count "$frames" "$level")
  per_update=$(((run - base) / (frames * characters)))
  per_joint[$level]=$(awk -v u="$per_update" -v j="$joints" 'BEGIN { printf "%.1f", u / j }')
  name=$level
  [ "$level" = best ] && name=neon
  printf '%-6s %9d instructions per update (%d joints): %6s per joint\n' "$name" "$per_update" "$joints" \
    "${per_joint[$level]}"
done
awk -v s="${per_joint[scalar]}" -v n="${per_joint[best]}" \
  'BEGIN { printf "scalar / neon: %.2fx (goal >= 2.5x)\n", s / n }'
