#!/bin/bash
# A process's first import, guarded against trusted, two ways, each alternated in fresh processes, COUNT of each,
# medians in ms: whole processes, `ossa info FILE` against `ossa --trusted info FILE` (start-up, the import and
# the summary); and the first import_file() call alone (`ossa_bench --first-import FILE guarded|unguarded`).
#   bench/first-import.sh [BUILD_DIR] [COUNT] [FILE...]   (defaults: build/release, 21, the bundled sample FBX and
#   GLB, the 71-joint humanoid and ../shared/models/animation_with_skeleton.fbx where it is)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
ossa=$build/ossa bench=$build/bench/ossa_bench
count=${2:-21}
shift $(($# < 2 ? $# : 2))
files=("$@")
if ((${#files[@]} == 0)); then
  files=("$root/assets/sample/ossa_sample.fbx" "$root/assets/sample/ossa_sample.glb"
         "$root/assets/bench/ossa_humanoid70.glb")
  shared=$root/../shared/models/animation_with_skeleton.fbx
  if [ -f "$shared" ]; then files+=("$shared"); else echo "($shared not found: the bundled files only)"; fi
fi
ms() {  # runs the command, prints its wall time in microseconds
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(((end - start) / 1000))
}
call_ms() {  # the import call's own time, in microseconds
  "$bench" --first-import "$@" | awk '{printf "%d\n", $1 * 1000}'
}
median() { sort -n | awk '{v[NR] = $1} END {printf "%.1f", v[int((NR + 1) / 2)] / 1000}'; }
printf '%-32s %10s %10s %8s   %10s %10s %8s\n' file "process g" "trusted" ratio "call g" "unguarded" ratio
for f in "${files[@]}"; do
  guarded=() trusted=() call_guarded=() call_unguarded=()
  for _ in $(seq "$count"); do
    guarded+=("$(ms "$ossa" info "$f")")
    trusted+=("$(ms "$ossa" --trusted info "$f")")
    call_guarded+=("$(call_ms "$f" guarded)")
    call_unguarded+=("$(call_ms "$f" unguarded)")
  done
  g=$(printf '%s\n' "${guarded[@]}" | median)
  t=$(printf '%s\n' "${trusted[@]}" | median)
  cg=$(printf '%s\n' "${call_guarded[@]}" | median)
  cu=$(printf '%s\n' "${call_unguarded[@]}" | median)
  printf '%-32s %10s %10s %7.2fx   %10s %10s %7.2fx\n' "$(basename "$f")" "$g" "$t" \
    "$(awk -v a="$g" -v b="$t" 'BEGIN {print a / b}')" "$cg" "$cu" "$(awk -v a="$cg" -v b="$cu" 'BEGIN {print a / b}')"
done
