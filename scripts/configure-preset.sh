#!/usr/bin/env bash
# Configures a CMake preset's build tree unless it is complete, from the source tree in the working folder.
# Usage: scripts/configure-preset.sh PRESET [BINARY_DIR]   (BINARY_DIR: default build/PRESET, as CMakePresets.json)
# A configure that failed (run before a cross compiler was installed, or before scripts/windows-deps.sh had built
# the Windows dependencies) leaves CMakeCache.txt behind without build.ninja; CMake keeps its first compiler in the
# cache and `cmake --build` cannot repair the tree, so such a tree is configured again from scratch. A complete
# tree is left alone (`cmake --build` re-runs CMake itself when a CMakeLists.txt changed).
set -euo pipefail
preset="${1:?usage: configure-preset.sh PRESET [BINARY_DIR]}"
binary_dir="${2:-build/$preset}"
if [ -f "$binary_dir/build.ninja" ] && [ -f "$binary_dir/CMakeCache.txt" ]; then exit 0; fi
if [ -e "$binary_dir/CMakeCache.txt" ]; then
  echo "configure-preset: $binary_dir was not configured completely (no build.ninja): configuring it again" >&2
fi
rm -rf "$binary_dir/CMakeCache.txt" "$binary_dir/CMakeFiles"
cmake --preset "$preset" >/dev/null
