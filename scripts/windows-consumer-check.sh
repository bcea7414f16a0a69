#!/usr/bin/env bash
# Ossa as a Windows game uses it: `cmake --install` of the windows preset (MinGW-w64) to a temporary prefix, then
# tests/consumers/installed, a separate CMake project, configured with the same toolchain and find_package(ossa)
# (every component: runtime, import with its assimp installed beside it, render with Direct3D 11), built and run
# under Wine: runtime_app on a .ossa, game_app importing the FBX sample, render_app drawing with Direct3D 11.
# The programs must need no DLL but Windows' own. Direct3D 11 under Wine needs an X server: run inside xvfb-run.
# Usage: scripts/windows-consumer-check.sh [BUILD_DIR]   (default build/windows, which must be built)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath "${1:-$here/build/windows}")"
work="$here/build/windows-consumer-check"  # a fixed folder: the compiler cache sees the same paths each run
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
toolchain="$here/cmake/toolchains/x86_64-w64-mingw32.cmake"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
wine_run() { "$here/scripts/wine-run.sh" "$@"; }
start=$SECONDS

cmake --install "$build" --prefix "$work/prefix" >/dev/null
echo "installed: $(cd "$work/prefix" && find . -type f | sed 's|^\./||' | cut -d/ -f1-2 | sort -u | tr '\n' ' ')"
sample="$here/assets/sample/ossa_sample.fbx"
wine_run "$work/prefix/bin/ossa.exe" --trusted convert "Z:$sample" -o "Z:$work/sample.ossa" >/dev/null

cp -r "$here/tests/consumers/installed" "$work/src"
# The prefix is a find root too: the toolchain searches only under its roots (never the host's /usr).
cmake -S "$work/src" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release --no-warn-unused-cli \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_ROOT_PATH="$work/prefix" \
  -DOSSA_SOURCE_DIR="$here" "${launcher[@]}" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" -j 2 >/dev/null
for t in runtime_app game_app render_app; do
  echo "link $t: $(ninja -C "$work/consumer" -t commands "$t.exe" | tail -1 | sed 's/^: && //; s/ && :$//')"
  dlls="$(x86_64-w64-mingw32-objdump -p "$work/consumer/$t.exe" | sed -n 's/.*DLL Name: //p' | sort -u | tr '\n' ' ')"
  echo "DLLs $t.exe: $dlls"
  if grep -Eiq 'libstdc|libgcc|winpthread|assimp|zlib|minizip|ossa' <<<"$dlls"; then
    echo "windows-consumer-check: $t.exe needs a DLL a game would have to ship: $dlls" >&2
    exit 1
  fi
done
wine_run "$work/consumer/runtime_app.exe" "Z:$work/sample.ossa" | tail -1
wine_run "$work/consumer/game_app.exe" "Z:$sample" 2>/dev/null | tail -1
wine_run "$work/consumer/render_app.exe" "Z:$work/sample.ossa"
printf 'windows-consumer-check: all passed in %d s\n' $((SECONDS - start))
