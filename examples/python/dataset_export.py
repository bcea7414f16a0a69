"""Motion as training data: every clip of every model file in a folder, one .npz each.

    python3 dataset_export.py FOLDER OUT_DIR [--fps 30] [--trusted]

Each FBX, glTF, COLLADA and BVH file under FOLDER (recursively) is loaded (guarded, unless --trusted) and each
of its clips sampled at --fps (default: the clip's own rate) into OUT_DIR/<file>__<clip>.npz holding
  times (T,) float64, positions (T, J, 3) float32 (model space), local (T, J, 10) float32 (translation,
  rotation xyzw, scale), parents (J,) int32, names (J,) str.
A progress bar goes to stderr, a summary (files, clips, frames, failures, seconds) to stdout; a file that fails
to load is reported and skipped. Files are written whole (a temporary name, then renamed).
"""
import argparse
import os
import pathlib
import re
import sys
import time

import numpy as np

import ossa

MODEL_SUFFIXES = {".fbx", ".glb", ".gltf", ".dae", ".bvh"}


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "clip"


def progress(done, total, label):
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{' ' * (width - filled)}] {done}/{total} {label[:40]:<40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


# [snippet export_clip]
def export_clip(character, clip, fps, path):
    times = clip.frame_times(fps)  # fps 0: the clip's own rate
    arrays = dict(times=times,
                  positions=character.joint_positions(clip, times),  # (T, J, 3)
                  local=character.local_poses(clip, times),  # (T, J, 10)
                  parents=character.skeleton.parents,
                  names=np.array(character.skeleton.names))
    partial = path.with_name(path.name + ".partial.npz")
    np.savez_compressed(partial, **arrays)
    os.replace(partial, path)  # whole or not at all
    return len(times)
# [/snippet]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("out_dir", type=pathlib.Path)
    parser.add_argument("--fps", type=float, default=0.0, help="sample rate (default: each clip's own)")
    parser.add_argument("--trusted", action="store_true", help="import without the guard (your own files)")
    args = parser.parse_args()
    files = sorted(p for p in args.folder.rglob("*") if p.suffix.lower() in MODEL_SUFFIXES)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    start, clips, frames, failures = time.perf_counter(), 0, 0, []
    for n, path in enumerate(files, 1):
        progress(n - 1, len(files), path.name)
        try:
            character = ossa.load(path, trusted=args.trusted)
        except ossa.OssaError as error:
            failures.append(f"{path}: {error}")
            continue
        for clip in character.clips:
            out = args.out_dir / f"{safe(path.stem)}__{safe(clip.name)}.npz"
            frames += export_clip(character, clip, args.fps, out)
            clips += 1
    progress(len(files), len(files), "done")
    seconds = time.perf_counter() - start
    print(f"{len(files) - len(failures)} files, {clips} clips, {frames} frames -> {args.out_dir} "
          f"in {seconds:.2f} s; {len(failures)} failed")
    for line in failures:
        print(f"  failed: {line}")
    return 1 if failures and len(failures) == len(files) else 0


if __name__ == "__main__":
    sys.exit(main())
