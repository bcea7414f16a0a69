#!/usr/bin/env bash
# Cross-builds the windows preset's dependencies from Debian's own source packages: assimp 5.2.5 (FBX, glTF 2.0
# and COLLADA importers, static) and the minizip it reads archives with (zlib's contrib/minizip), over
# libz-mingw-w64-dev's zlib, for the importer; Dear ImGui 1.86 with its Win32 and Direct3D 11 backends, for
# `ossa view`. Nothing is vendored: `apt-get source` fetches the sources from the package registry (a deb-src
# entry for the Debian mirror apt already uses is added when none is there) into ~/.cache/ossa-debian-sources,
# they are unpacked in the build tree, and the result is installed into build/windows-deps/prefix, where the
# windows preset looks for it.
# Usage: scripts/windows-deps.sh   (scripts/bootstrap.sh windows runs it). Quick when the prefix is up to date;
# a first build is ~6 minutes on 2 cores (ccache makes later ones, in other clones, take ~20 s).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$here/build/windows-deps"
prefix="$deps/prefix"
toolchain="$here/cmake/toolchains/x86_64-w64-mingw32.cmake"
stamp="$prefix/.ossa-windows-deps"
recipe_hash="$(sha256sum "${BASH_SOURCE[0]}" "$toolchain" | sha256sum | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe_hash" ]; then
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
# The source packages: the deb-src twin of the first Debian entry apt has (deb822 .sources or sources.list).
if ! apt-get source --print-uris -qq assimp >/dev/null 2>&1; then
  mirror="$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -E '/debian/?$' | head -1 || true)"
  [ -n "$mirror" ] || mirror="$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -E '/debian/?$' | head -1 || true)"
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
  echo "windows-deps: adding deb-src $mirror $codename main (/etc/apt/sources.list.d/ossa-deb-src.sources)"
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$codename" | "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/ossa-deb-src.sources.tmp >/dev/null
  "${sudo_cmd[@]}" mv /etc/apt/sources.list.d/ossa-deb-src.sources.tmp /etc/apt/sources.list.d/ossa-deb-src.sources
  "${sudo_cmd[@]}" apt-get update -qq
fi

# Each source package unpacked once per version, in the build tree, with the Debian patches named after it
# (assimp: those that take utf8cpp and stb_image from their packages, which Debian's tarball leaves out; not the
# one that makes draco required, which has no MinGW build). The downloads are kept outside the build tree, like
# the Wine prefix (a fresh clone fetches nothing again); dpkg-source checks them against their .dsc each time.
downloads="${OSSA_DEBIAN_SOURCES:-${XDG_CACHE_HOME:-$HOME/.cache}/ossa-debian-sources}"
fetch_source() {  # PACKAGE [PATCH...] -> prints the unpacked folder
  local package="$1" version folder patch
  shift
  version="$(apt-get source --print-uris -qq "$package" | awk '/\.dsc/ {print $2}' | head -1)"
  folder="$deps/src/${version%.dsc}"
  if [ ! -d "$folder" ]; then
    mkdir -p "$downloads" "$deps/src"
    download() {
      (cd "$downloads" && apt-get source -qq --download-only "$package" 2>&1 |
        grep -v '^W: Download is performed unsandboxed' >&2 || true)
    }
    [ -f "$downloads/$version" ] || download
    rm -rf "$folder.tmp"
    if ! dpkg-source --skip-patches -x "$downloads/$version" "$folder.tmp" >/dev/null 2>&1; then
      rm -rf "$folder.tmp"  # a damaged or partial download: fetched again
      download
      dpkg-source --skip-patches -x "$downloads/$version" "$folder.tmp" >/dev/null 2>&1 ||
        { echo "windows-deps: cannot unpack $downloads/$version" >&2; exit 1; }
    fi
    for patch in "$@"; do
      patch -d "$folder.tmp" -p1 -s <"$folder.tmp/debian/patches/$patch"
    done
    mv "$folder.tmp" "$folder"
  fi
  echo "$folder"
}
assimp_src="$(fetch_source assimp use-system-utf8cpp.patch use-system-stb_image.patch)"
zlib_src="$(fetch_source zlib)"
imgui_src="$(fetch_source imgui)"
echo "windows-deps: building $(basename "$assimp_src") and minizip from $(basename "$zlib_src") for x86_64-w64-mingw32" >&2

launcher=()
cc=(x86_64-w64-mingw32-gcc-posix)
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cc=(ccache "${cc[@]}")
fi
rm -rf "$prefix"
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include/minizip"

# minizip: the zip reader assimp's archive I/O links (Debian builds libminizip from the same zlib sources).
minizip="$zlib_src/contrib/minizip"
mkdir -p "$deps/minizip"
for unit in ioapi unzip iowin32; do
  "${cc[@]}" -O2 -c "$minizip/$unit.c" -o "$deps/minizip/$unit.o"
done
x86_64-w64-mingw32-ar rcs "$prefix/lib/libminizip.a" "$deps/minizip"/{ioapi,unzip,iowin32}.o
cp "$minizip"/{ioapi.h,unzip.h,iowin32.h} "$prefix/include/minizip/"
printf 'prefix=%s\nName: minizip\nDescription: zlib contrib/minizip (unzip)\nVersion: 1.2.13\nCflags: -I${prefix}/include/minizip\nLibs: -L${prefix}/lib -lminizip -lz\n' \
  "$prefix" >"$prefix/lib/pkgconfig/minizip.pc"

# assimp: the three formats Ossa imports, no exporters, tools or tests. Debian's source package leaves out the
# headers it takes from other packages (utf8cpp, stb_image): the host's header-only packages give them,
# through a folder that holds just those (never -I/usr/include, whose glibc headers would shadow MinGW's).
mkdir -p "$deps/host-headers"
ln -sfn /usr/include/utf8cpp "$deps/host-headers/utf8cpp"
ln -sfn /usr/include/stb "$deps/host-headers/stb"
# Ossa's toolchain file, with pkg-config looking in the prefix (for minizip.pc) instead of the MinGW sysroot.
printf 'include("%s")\nset(ENV{PKG_CONFIG_LIBDIR} "%s")\n' "$toolchain" "$prefix/lib/pkgconfig" >"$deps/toolchain.cmake"
rm -rf "$deps/assimp-build"
cmake -S "$assimp_src" -B "$deps/assimp-build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$deps/toolchain.cmake" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-I$deps/host-headers -I$deps/host-headers/utf8cpp -I$deps/host-headers/stb -Wno-deprecated-declarations" \
  -DCMAKE_C_FLAGS="-I$deps/host-headers" \
  -DBUILD_SHARED_LIBS=OFF -DASSIMP_BUILD_ZLIB=OFF -DASSIMP_BUILD_TESTS=OFF -DASSIMP_BUILD_ASSIMP_TOOLS=OFF \
  -DASSIMP_BUILD_SAMPLES=OFF -DASSIMP_BUILD_DOCS=OFF -DASSIMP_INSTALL_PDB=OFF -DASSIMP_WARNINGS_AS_ERRORS=OFF \
  -DASSIMP_NO_EXPORT=ON -DASSIMP_BUILD_ALL_IMPORTERS_BY_DEFAULT=OFF \
  -DASSIMP_BUILD_FBX_IMPORTER=ON -DASSIMP_BUILD_GLTF_IMPORTER=ON -DASSIMP_BUILD_COLLADA_IMPORTER=ON \
  -DASSIMP_BUILD_OBJ_IMPORTER=ON -DASSIMP_BUILD_DRACO=OFF -DASSIMP_BUILD_M3D_IMPORTER=OFF \
  -DZLIB_INCLUDE_DIR=/usr/x86_64-w64-mingw32/include -DZLIB_LIBRARY=/usr/x86_64-w64-mingw32/lib/libz.a \
  >"$deps/assimp-configure.log" || { tail -30 "$deps/assimp-configure.log" >&2; exit 1; }
cmake --build "$deps/assimp-build" -j 2
cmake --install "$deps/assimp-build" >/dev/null
# Dear ImGui: the library, std::string widgets, and the Win32 and Direct3D 11 backends (the Linux build takes
# Debian's libimgui-dev with its GLFW and OpenGL 3 backends), headers laid out as that package's.
mkdir -p "$deps/imgui" "$prefix/include/imgui/backends"
cxx=(x86_64-w64-mingw32-g++-posix)
command -v ccache >/dev/null && cxx=(ccache "${cxx[@]}")
objects=()
for unit in imgui imgui_draw imgui_tables imgui_widgets misc/cpp/imgui_stdlib backends/imgui_impl_win32 \
            backends/imgui_impl_dx11; do
  object="$deps/imgui/$(basename "$unit").o"
  "${cxx[@]}" -O2 -w -std=c++17 -I"$imgui_src" -c "$imgui_src/$unit.cpp" -o "$object"
  objects+=("$object")
done
x86_64-w64-mingw32-ar rcs "$prefix/lib/libimgui.a" "${objects[@]}"
cp "$imgui_src"/{imgui.h,imconfig.h,imgui_internal.h,imstb_rectpack.h,imstb_textedit.h,imstb_truetype.h} \
  "$imgui_src/misc/cpp/imgui_stdlib.h" "$prefix/include/imgui/"
cp "$imgui_src"/backends/{imgui_impl_win32.h,imgui_impl_dx11.h} "$prefix/include/imgui/backends/"

echo "$recipe_hash" >"$stamp"
echo "windows-deps: installed into $prefix" >&2
