#!/bin/bash
# Ossa's clip compression against ACL 2.1, side by side (bench/vs-acl/vs_acl.cpp says what is measured):
# installs this checkout's release build to a prefix under BUILD_DIR, builds the harness and runs it on the
# bundled sample, assets/bench's humanoid in metres and in centimetres under a 0.01 root, and every file of
# ../shared/models. Not part of CI (ACL is fetched by hand).
#   git clone --branch v2.1.0 --recursive https://github.com/nfrechette/acl ACL_DIR
#   bench/vs-acl.sh ACL_DIR [BUILD_DIR]        (default: build/release)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
acl=$(cd "${1:?usage: bench/vs-acl.sh ACL_DIR [BUILD_DIR]}" && pwd)
build=$(cd "${2:-$root/build/release}" && pwd)
work=$build/vs-acl
source "$root/bench/common.sh"
install_ossa "$build" "$work/prefix"
model_files "$root" "$root/assets/sample/ossa_sample.fbx" "$root/assets/bench/ossa_humanoid70.glb" \
  "$root/assets/bench/ossa_humanoid70_cm.fbx"
if ! cmake -S "$root/bench/vs-acl" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DACL_SOURCE_DIR="$acl" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" 2>&1 ||
  ! cmake --build "$work/build" -j2 >"$work/build.log" 2>&1; then
  cat "$work/configure.log" "$work/build.log" 2>/dev/null >&2
  exit 1
fi
echo "## ACL 2.1 against Ossa ($(date -u +%F), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
"$work/build/ossa_vs_acl" "${files[@]}"
# The shell's convention: the humanoid under a 100x and a 0.01x root (the model unchanged).
for scale in 100 0.01; do
  echo
  "$work/build/ossa_vs_acl" --root-scale $scale "$root/assets/bench/ossa_humanoid70.glb" "$root/assets/sample/ossa_sample.fbx"
done
