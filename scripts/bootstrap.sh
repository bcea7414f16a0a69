#!/usr/bin/env bash
# Installs the Debian 12 packages Ossa builds with (only those missing), then configures and builds a preset.
# Usage: scripts/bootstrap.sh [PRESET]   (default: release). Idempotent; quick when nothing changed.
# PRESET aarch64 (the cross build of ossa::runtime and its tests, run under qemu) also installs the arm64
# packages below, once Debian's arm64 architecture is enabled (dpkg --add-architecture arm64). PRESET windows
# (the MinGW-w64 cross build of the runtime, the Direct3D 11 renderer, ossa.exe and their tests, run under Wine
# inside Xvfb) also installs the packages below.
set -euo pipefail
preset="${1:-release}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The one list of build and test dependencies (Debian 12 package names).
packages=(
  build-essential cmake ninja-build pkg-config
  ccache                 # compiler cache: rebuilds and fresh clones on the same machine reuse compiled files
  libassimp-dev          # import: FBX / glTF / COLLADA
  zlib1g-dev             # assimp's CMake config links libz.so by path (a minimal Debian 12 lacks it)
  libcli11-dev           # CLI parsing
  nlohmann-json3-dev     # JSON output and sidecar files
  libxxhash-dev          # .ossa section checksums
  libgtest-dev libgmock-dev   # tests
  libbenchmark-dev       # benchmarks
  libepoxy-dev libegl-dev libegl1-mesa-dev libegl-mesa0 libgl1-mesa-dri   # OpenGL 4.5, headless (llvmpipe)
  libstb-dev libgif-dev  # PNG output; giflib decodes the GIF writer's output in its tests
  libmeshoptimizer-dev   # crowds: the decimated level-of-detail mesh (optional: without it, full detail only)
  libglfw3-dev libimgui-dev libglx-mesa0   # `ossa view`: window (GLFW, OpenGL through GLX) and Dear ImGui
  xvfb xauth             # the viewer's window tests run in a virtual X server (xvfb-run)
  python3-dev pybind11-dev python3-numpy   # the `ossa` Python module (python/)
  python3-pytest python3-venv python3-pip python3-setuptools python3-wheel   # its tests, pip install included
)
# Node.js and npm run the glTF export's checks (the Khronos validator, three.js; installed from the npm registry into
# the build tree below). A machine that has them from elsewhere keeps its own.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
# Only for the aarch64 preset: the cross compiler, qemu to run the tests, the runtime's libraries for arm64.
if [ "$preset" = aarch64 ]; then
  packages+=(
    g++-aarch64-linux-gnu qemu-user
    libxxhash-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
  )
fi
# Only for the windows preset: MinGW-w64 with posix threads (std::thread), Wine to run the tests, GoogleTest's
# sources to build for the target, and what scripts/windows-deps.sh cross-builds assimp with (from Debian's
# source package). The header-only libraries come from the main list (libxxhash-dev, ...).
# Direct3D 11 under Wine needs an X server (Xvfb here) and the X and GL client libraries Wine loads.
if [ "$preset" = windows ]; then
  packages+=(g++-mingw-w64-x86-64-posix wine wine64 libwine fonts-wine googletest
             libz-mingw-w64-dev libutfcpp-dev dpkg-dev   # the importer: assimp from source (scripts/windows-deps.sh)
             libgl1 libxrender1 libxcomposite1 libxcursor1 libxi6 libxinerama1 libxrandr2 libxxf86vm1
             libxfixes3 libvulkan1)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  if [ "$preset" = aarch64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo_cmd[@]}" dpkg --add-architecture arm64
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cd "$here"
if [ "$preset" = windows ]; then
  scripts/windows-deps.sh
fi
scripts/configure-preset.sh "$preset"  # also repairs a tree whose first configure failed
cmake --build --preset "$preset" -j 2

# The npm packages the glTF export's tests run (pinned in tests/gltf/package.json), into the build tree: the
# source tree is never written. Skipped when they are already there.
if [ "$preset" != aarch64 ] && [ "$preset" != windows ]; then
  npm_dir="build/$preset/npm"
  if ! cmp -s tests/gltf/package.json "$npm_dir/package.json" || [ ! -f "$npm_dir/node_modules/three/package.json" ] ||
     [ ! -f "$npm_dir/node_modules/gltf-validator/package.json" ]; then
    mkdir -p "$npm_dir"
    cp tests/gltf/package.json "$npm_dir/package.json"
    (cd "$npm_dir" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error)
  fi
fi
