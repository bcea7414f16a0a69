#!/usr/bin/env bash
# Makes docs/images/mm-walk.gif, the README's motion-matching picture: the bundled sample driven by a scripted
# stick through a database of the shared locomotion mocap (../shared/mocap, CC BY-NC 4.0, read, never copied)
# retargeted onto it and mirrored. Usage: scripts/mm-gif.sh [BUILD_DIR] (default build/release).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build/release}"
mocap="${OSSA_SHARED_DIR:-../shared}/mocap"
[ -d "$mocap" ] || { echo "mm-gif: $mocap not found" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# 10 s at 60 Hz: 2 s forward, 3 s curving left, 2 s running, 2 s curving right, 1 s letting go.
awk 'BEGIN {
  for (i = 0; i < 600; ++i) {
    t = i / 60; x = 0; y = 1; run = "";
    if (t >= 2 && t < 5) { a = (t - 2) / 3 * 1.6; x = -sin(a); y = cos(a) }
    else if (t >= 5 && t < 7) { x = -sin(1.6); y = cos(1.6); run = " run" }
    else if (t >= 7 && t < 9) { a = 1.6 - (t - 7) / 2 * 2.4; x = -sin(a); y = cos(a) }
    else if (t >= 9) { x = 0; y = 0 }
    printf "0.0166667 %.4f %.4f%s\n", x, y, run
  }
}' >"$work/stick.txt"
"$build/ossa" mm build assets/sample/ossa_sample.fbx "$mocap"/*.bvh --scale 0.01 --mirror -o "$work/db.ossa"
"$build/ossa" mm play "$work/db.ossa" --inputs "$work/stick.txt" --bake "$work/played.ossa" >/dev/null
"$build/ossa" render "$work/played.ossa" --clip mm_play --frames 100 --fps 10 --size 256x256 --follow \
  -o "$work/mm-walk.gif"
mv "$work/mm-walk.gif" docs/images/mm-walk.gif
echo "docs/images/mm-walk.gif: $(stat -c %s docs/images/mm-walk.gif) bytes"
