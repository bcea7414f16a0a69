#!/usr/bin/env bash
# scripts/configure-preset.sh repairs a build tree whose first configure failed: a preset whose compiler is
# missing is configured once (it fails and leaves CMakeCache.txt behind, as `cmake --preset aarch64` does before
# g++-aarch64-linux-gnu is installed), the compiler then "installed", and the script must leave a tree that builds.
# A complete tree must be left alone (not configured again).
# Usage: configure_preset_recovers.sh REPO_ROOT SCRATCH_DIR
set -euo pipefail
repo="$1" scratch="$2"
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
cat >CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(recovers CXX)
file(WRITE ${CMAKE_BINARY_DIR}/main.cpp "int main() { return 0; }\n")
add_executable(recovers ${CMAKE_BINARY_DIR}/main.cpp)
CMAKE
cat >CMakePresets.json <<'JSON'
{"version": 6, "configurePresets": [{"name": "cross", "generator": "Ninja", "binaryDir": "${sourceDir}/build/cross",
                                     "toolchainFile": "${sourceDir}/toolchain.cmake"}]}
JSON
echo 'set(CMAKE_CXX_COMPILER /nonexistent/cross-g++)' >toolchain.cmake
if cmake --preset cross >/dev/null 2>&1; then echo "FAIL: the planted configure did not fail"; exit 1; fi
[ -f build/cross/CMakeCache.txt ] || { echo "FAIL: the failed configure left no cache (nothing to test)"; exit 1; }
echo "set(CMAKE_CXX_COMPILER $(command -v c++))" >toolchain.cmake  # the cross compiler, installed
"$repo/scripts/configure-preset.sh" cross
cmake --build build/cross >/dev/null || { echo "FAIL: the tree does not build after configure-preset.sh"; exit 1; }
[ -x build/cross/recovers ] || { echo "FAIL: no program built"; exit 1; }
# A complete tree is not configured again (its cache keeps a marker).
cmake -DOSSA_RECOVERS_MARKER=kept build/cross >/dev/null
"$repo/scripts/configure-preset.sh" cross
grep -q '^OSSA_RECOVERS_MARKER:UNINITIALIZED=kept' build/cross/CMakeCache.txt ||
  { echo "FAIL: a complete tree was configured again"; exit 1; }
echo "configure-preset.sh repaired the half-configured tree and left the complete one alone"
