#!/bin/bash
# Ossa against ozz-animation 0.16, side by side (bench/vs-ozz/vs_ozz.cpp says what is measured): installs
# this checkout's release build to a prefix under BUILD_DIR, builds the harness twice (ozz at SSE2, and at
# AVX2+FMA with -mavx2 -mfma; Ossa's kernels set to the same level) and runs both on the bundled sample,
# assets/bench/ossa_humanoid70.glb and every file of ../shared/models. Not part of CI (ozz is fetched by hand).
#   git clone --branch 0.16.0 https://github.com/guillaumeblanc/ozz-animation OZZ_DIR
#   bench/vs-ozz.sh OZZ_DIR [RUNS] [BUILD_DIR]        (defaults: 3 runs, build/release)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ozz=$(cd "${1:?usage: bench/vs-ozz.sh OZZ_DIR [RUNS] [BUILD_DIR]}" && pwd)
runs=${2:-3}
build=$(cd "${3:-$root/build/release}" && pwd)
work=$build/vs-ozz
source "$root/bench/common.sh"
install_ossa "$build" "$work/prefix"
model_files "$root" "$root/assets/sample/ossa_sample.fbx" "$root/assets/bench/ossa_humanoid70.glb"
for level in sse2 avx2; do
  flags=""
  [ $level = avx2 ] && flags="-mavx2 -mfma"
  if ! cmake -S "$root/bench/vs-ozz" -B "$work/$level" -DCMAKE_BUILD_TYPE=Release -DOZZ_SOURCE_DIR="$ozz" \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" >"$work/$level.log" 2>&1 ||
    ! cmake --build "$work/$level" -j2 >>"$work/$level.log" 2>&1; then
    cat "$work/$level.log" >&2
    exit 1
  fi
  echo "## $level ($(date -u +%F), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
  "$work/$level/ossa_vs_ozz" --runs "$runs" "${files[@]}"
  echo
done
