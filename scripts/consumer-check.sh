#!/usr/bin/env bash
# Builds Ossa the way other projects use it, each as a separate CMake project outside the source tree
# (tests/consumers/), and checks what their binaries link:
#   1. installed, find_package(ossa): runtime, import and render apps (cmake --install to a temporary prefix)
#   2. installed, find_package(ossa COMPONENTS runtime), configured where assimp is not found
#   3. the examples built standalone against the installed prefix (the sample found in share/ossa/sample),
#      and their ctest tests
#   4. pkg-config: ossa-runtime and ossa
#   5. add_subdirectory, runtime only, on a machine view without assimp, CLI11, GTest, giflib, benchmark
#   6. add_subdirectory with the CLI on (its binary folder is `ossa`, the CLI's old output path)
#   7. the packagers' preset (libraries): installs libraries, headers and package files only; a consumer
#      builds against that prefix
# Runtime-only binaries must not need assimp, GL, EGL, epoxy, giflib or meshoptimizer (readelf -d NEEDED).
# Usage: scripts/consumer-check.sh [BUILD_DIR]   (default build/release, built first if needed)
# Set OSSA_BUILD_LOCK=/path/to/lockfile to run every build under flock (shared build machines).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath "${1:-$here/build/release}")"
# A fixed folder under the build tree, so that the compiler cache (ccache, with CCACHE_BASEDIR at the clone as
# .ci/run sets it) sees the same relative paths from one run and one clone to the next.
work="$here/build/consumer-check"
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
start=$SECONDS

locked() { if [ -n "${OSSA_BUILD_LOCK:-}" ]; then flock "$OSSA_BUILD_LOCK" "$@"; else "$@"; fi; }
step() { printf '\n== consumer-check: %s\n' "$*"; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
check_runtime_only() {  # BINARY: no assimp, GL or giflib among its NEEDED libraries
  local libs
  libs="$(needed "$1")"
  echo "NEEDED $(basename "$1"): $libs"
  if grep -Eq 'assimp|libGL|libEGL|epoxy|libgif|meshoptimizer|libz\.|draco|minizip' <<<"$libs"; then
    echo "consumer-check: $1 needs a library the runtime must not: $libs" >&2
    exit 1
  fi
}
link_line() {  # DIR TARGET: the consumer's link command, as its build ran it
  echo "link $2: $(ninja -C "$1" -t commands "$2" | tail -1 | sed 's/^: && //; s/ && :$//')"
}
configure() {  # NAME SOURCE_SUBDIR ARGS...: copy the consumer project out of the tree and configure it
  local name="$1" src="$2"
  shift 2
  cp -r "$here/tests/consumers/$src" "$work/src-$name"
  cmake -S "$work/src-$name" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release --no-warn-unused-cli \
    -DOSSA_SOURCE_DIR="$here" "${launcher[@]}" "$@" >"$work/$name.configure.log" || {
    cat "$work/$name.configure.log"
    exit 1
  }
}

step "build and install $build to a temporary prefix"
locked cmake --build "$build" -j 2 >/dev/null
cmake --install "$build" --prefix "$work/prefix" >/dev/null
sample="$here/assets/sample/ossa_sample.fbx"
"$work/prefix/bin/ossa" --trusted convert "$sample" -o "$work/sample.ossa" >/dev/null

step "1. find_package(ossa) after cmake --install"
configure installed installed -DCMAKE_PREFIX_PATH="$work/prefix"
locked cmake --build "$work/installed" -j 2 >/dev/null
for t in runtime_app game_app render_app; do link_line "$work/installed" "$t"; done
"$work/installed/runtime_app" "$work/sample.ossa" | sed -n 1p
"$work/installed/game_app" "$sample" | tail -1
"$work/installed/render_app" "$work/sample.ossa"
check_runtime_only "$work/installed/runtime_app"
echo "NEEDED game_app: $(needed "$work/installed/game_app")"
echo "NEEDED render_app: $(needed "$work/installed/render_app")"

step "2. find_package(ossa COMPONENTS runtime) where assimp is not found"
configure installed-runtime installed -DCMAKE_PREFIX_PATH="$work/prefix" -DCONSUMER_RUNTIME_ONLY=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_assimp=ON
locked cmake --build "$work/installed-runtime" -j 2 >/dev/null
link_line "$work/installed-runtime" runtime_app
"$work/installed-runtime/runtime_app" "$work/sample.ossa" | tail -1
check_runtime_only "$work/installed-runtime/runtime_app"

step "3. examples/ standalone against the installed prefix"
cp -r "$here/examples" "$work/src-examples"
cmake -S "$work/src-examples" -B "$work/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" >"$work/examples.configure.log"
grep -q "the sample from $work/prefix/share/ossa/sample" "$work/examples.configure.log" || {
  echo "consumer-check: the standalone examples did not find the installed sample" >&2
  grep "sample" "$work/examples.configure.log" >&2
  exit 1
}
locked cmake --build "$work/examples" -j 2 >/dev/null
(cd "$work/examples" && locked ctest --output-on-failure | grep -E 'tests passed|Failed')

step "4. pkg-config"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
for pc in ossa-runtime ossa; do
  src="$here/examples/runtime_only.cpp"
  [ "$pc" = ossa ] && src="$here/tests/consumers/common/render_app.cpp"  # import and render
  # The .pc files state no -std (they would lower a newer one): C++23 here, the headers need C++20 or later.
  line="g++ -std=c++23 $(pkg-config --cflags "$pc") $src -o $work/pc-$pc $(pkg-config --libs "$pc")"
  echo "link pkg-config $pc: $line"
  locked $line
done
"$work/pc-ossa-runtime" "$work/sample.ossa" | tail -1
# Older than C++20: a clear error from the headers, not a wall of template errors.
if g++ -std=c++17 $(pkg-config --cflags ossa-runtime) -fsyntax-only "$here/examples/runtime_only.cpp" 2>"$work/cxx17.log" ||
  ! grep -q "Ossa needs C++20 or later" "$work/cxx17.log"; then
  echo "consumer-check: a C++17 build of a runtime consumer did not stop with Ossa's message" >&2
  head -5 "$work/cxx17.log" >&2
  exit 1
fi
echo "C++17 consumer: $(grep -o 'Ossa needs C++20 or later[^"]*' "$work/cxx17.log" | sed -n 1p)"
"$work/pc-ossa" "$work/sample.ossa" | tail -1
check_runtime_only "$work/pc-ossa-runtime"

step "5. add_subdirectory, runtime only (no assimp, CLI11, GTest, giflib, benchmark found)"
configure sub-runtime subdirectory -DCMAKE_DISABLE_FIND_PACKAGE_assimp=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_GIF=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
grep '^-- ossa:' "$work/sub-runtime.configure.log" || true
locked cmake --build "$work/sub-runtime" -j 2 >/dev/null
link_line "$work/sub-runtime" runtime_app
"$work/sub-runtime/runtime_app" "$work/sample.ossa" | tail -1
check_runtime_only "$work/sub-runtime/runtime_app"

step "6. add_subdirectory(ossa) with the CLI built (OSSA_BUILD_TOOLS=ON)"
configure sub-tools subdirectory -DOSSA_BUILD_TOOLS=ON -DOSSA_BUILD_RENDER=OFF
locked cmake --build "$work/sub-tools" -j 2 >/dev/null
test -d "$work/sub-tools/ossa" && test -x "$work/sub-tools/ossa/bin/ossa"
"$work/sub-tools/ossa/bin/ossa" --trusted info "$sample" | sed -n 1p
link_line "$work/sub-tools" game_app
"$work/sub-tools/game_app" "$sample" | tail -1

step "7. the libraries preset (packagers): libraries, headers and package files only"
(cd "$here" && cmake --preset libraries "${launcher[@]}" >"$work/libraries.configure.log" &&
  locked cmake --build --preset libraries -j 2 >/dev/null)
cmake --install "$here/build/libraries" --prefix "$work/prefix-libraries" >/dev/null
if [ -e "$work/prefix-libraries/bin" ] || [ -e "$work/prefix-libraries/share/ossa" ]; then
  echo "consumer-check: the libraries preset installed more than libraries:" >&2
  find "$work/prefix-libraries/bin" "$work/prefix-libraries/share/ossa" -maxdepth 1 >&2
  exit 1
fi
echo "installed: $(cd "$work/prefix-libraries" && find . -type f | sed 's|^\./||' | cut -d/ -f1-2 | sort -u | tr '\n' ' ')"
configure installed-libraries installed -DCMAKE_PREFIX_PATH="$work/prefix-libraries"
locked cmake --build "$work/installed-libraries" -j 2 >/dev/null
"$work/installed-libraries/game_app" "$sample" | tail -1

printf '\nconsumer-check: all passed in %d s\n' $((SECONDS - start))
