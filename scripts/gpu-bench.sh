#!/bin/bash
# Crowd drawing on a real GPU: `ossa bench --render` (1, 100, 1,000 and 10,000 characters; palette skinning,
# baked per vertex and per instance; street level with culling and both levels of detail) through EGL on the
# machine's GPU, written as a Markdown table and the JSON it comes from.
#
#   scripts/gpu-bench.sh prepare        here: a release build, then ossa, the sample and every shared library
#                                       ossa needs beyond the C and C++ runtimes, stripped, into .gpubench/
#                                       (ignored by git), about 30 MB
#   scripts/gpu-bench.sh run OUT_DIR [N]  on the GPU machine, from the repository root with .gpubench/ in
#                                       it: OUT_DIR/gpu-bench.md and gpu-bench.json (N: that crowd size only)
#
# With the `device` tool of this project's workplace: prepare, then
#   run(command="scripts/gpu-bench.sh run $OUT", carry=[".gpubench"], timeout_s=420)
# The bench itself takes 1-3 minutes on a GPU (the software renderer needs over 20). The machine has no
# network: nothing is built there. Its NVIDIA EGL vendor file is found where the driver mounts it
# (/usr/local/nvidia) or in the usual glvnd folders.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=.gpubench

prepare() {
  cmake --preset release >/dev/null
  cmake --build --preset release --target ossa -j2
  rm -rf "$dir" && mkdir -p "$dir/lib"
  grep -qx "/$dir/" .git/info/exclude 2>/dev/null || echo "/$dir/" >>.git/info/exclude
  cp build/release/ossa "$dir/ossa"
  cp assets/sample/ossa_sample.glb "$dir/"
  # Every library ossa loads except the C and C++ runtimes (newer ones on the GPU machine read our binary).
  ldd build/release/ossa | awk '/=> \//{print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libstdc++.so* | libgcc_s.so*) ;;
      *) cp -L "$lib" "$dir/lib/" ;;
    esac
  done
  # ossa reaches GL through libepoxy, which opens glvnd's dispatch libraries at run time; the GPU machine's
  # driver brings only its vendor library.
  for lib in libEGL.so.1 libGLdispatch.so.0 libOpenGL.so.0 libGL.so.1 libGLX.so.0 libGLESv2.so.2; do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/{print $NF; exit}')
    if [ -n "$path" ]; then cp -L "$path" "$dir/lib/"; else echo "gpu-bench: $lib not found (apt-get install libegl1 libgl1 libopengl0 libgles2)" >&2; exit 1; fi
  done
  strip --strip-unneeded "$dir/ossa" "$dir"/lib/* 2>/dev/null || true
  du -sh "$dir"
}

run() {
  local out=${1:?usage: scripts/gpu-bench.sh run OUT_DIR}
  mkdir -p "$out"
  [ -x "$dir/ossa" ] || { echo "gpu-bench: $dir/ossa missing: run 'scripts/gpu-bench.sh prepare' first" >&2; exit 2; }
  export LD_LIBRARY_PATH=$root/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local d
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do  # the driver's libraries, where it mounts them
    [ -d "$d" ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d
  done
  local vendor
  for vendor in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json \
    /usr/share/glvnd/egl_vendor.d/10_nvidia.json /etc/glvnd/egl_vendor.d/10_nvidia.json; do
    if [ -f "$vendor" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor; break; fi
  done
  echo "EGL vendor: ${__EGL_VENDOR_LIBRARY_FILENAMES:-glvnd default}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
  local count=()
  [ -n "${2:-}" ] && count=(--characters "$2")  # one crowd size only (a quick check of the script)
  timeout 400 "$dir/ossa" bench "$dir/ossa_sample.glb" --render "${count[@]}" --json >"$out/gpu-bench.json"
  python3 - "$out/gpu-bench.json" >"$out/gpu-bench.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cell = lambda v, f="%.2f": "-" if v is None else f % v
print("Renderer: %s; %s; measured with `scripts/gpu-bench.sh`.\n" % (d["renderer"], d["size"]))
print("| characters | path | CPU ms/frame | CPU µs/character | frame ms |")
print("|---|---|---|---|---|")
for n, row in d["characters"].items():
    for path in ("palette", "baked_per_vertex", "baked_per_instance"):
        r = row.get(path)
        if r: print("| %s | %s | %s | %s | %s |" % (n, path.replace("_", " "), cell(r["cpu_ms"]),
                    cell(r["cpu_us_per_character"]), cell(r["frame_ms"])))
print("\n| characters | street level | drawn | culled | 2 influences | decimated | triangles | CPU ms | frame ms | pixels over 8/255 |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n, row in d["characters"].items():
    for name, v in row.get("street_level", {}).items():
        print("| %s | %s | %d | %d | %d | %d | %d | %s | %s | %s |" % (n, name, v["drawn"], v["culled"], v["reduced"],
              v["decimated"], v["triangles"], cell(v["cpu_ms"]), cell(v["frame_ms"]),
              cell(v["pixels_over_8_of_255"], "%.4f")))
PY
  cat "$out/gpu-bench.md"
}

case ${1:-} in
  prepare) prepare ;;
  run) run "${2:-}" "${3:-}" ;;
  *) sed -n '2,18p' "$0"; exit 2 ;;
esac
