"""A pipeline's check of its characters: load, validate, convert, report as JSON.

    python3 pipeline_check.py OUT_DIR MODEL [MODEL ...] [--tolerance-mm 0.1] [--report report.json]

For each model: load it (guarded), check what a game would trip on (clips with no duration, poses that are not
finite, vertices whose weights do not sum to 1, notifies outside their clip), convert it to OUT_DIR/NAME.ossa
compressed within the tolerance, and report per file: joints, clips, meshes, problems, sizes, worst error.
The report goes to stdout (or --report, written whole); the exit status is 1 when any file has a problem.
"""
import argparse
import json
import os
import pathlib
import sys

import numpy as np

import ossa


# [snippet validate]
def problems_of(character):
    found = []
    for clip in character.clips:
        if clip.duration <= 0:
            found.append(f"clip '{clip.name}' has no duration")
        poses = character.joint_world(clip, clip.frame_times())
        if not np.isfinite(poses).all():
            found.append(f"clip '{clip.name}' has poses that are not finite")
        for notify in character.notifies.get(clip.name, []):
            if not 0 <= notify["time"] <= clip.duration + 1e-4:
                found.append(f"notify '{notify['name']}' at {notify['time']} s is outside '{clip.name}'")
    for mesh in character.meshes:
        off = np.abs(mesh.weights.sum(axis=1) - 1) > 1e-3
        if off.any():
            found.append(f"mesh '{mesh.name}': {int(off.sum())} vertices' weights do not sum to 1")
    return found
# [/snippet]


def check(path, out_dir, tolerance_mm):
    entry = {"file": str(path)}
    try:
        character = ossa.load(path)
        entry.update(joints=character.skeleton.joint_count, clips=[c.name for c in character.clips],
                     meshes=[m.name for m in character.meshes], problems=problems_of(character))
        report = ossa.convert(path, out_dir / (path.stem + ".ossa"), compress=True, tolerance_mm=tolerance_mm)
        entry.update(bytes_in=report["bytes_in"], bytes_out=report["bytes_out"],
                     worst_error_mm=report["worst_error_mm"])
    except ossa.OssaError as error:
        entry["problems"] = [str(error)]
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=pathlib.Path)
    parser.add_argument("models", type=pathlib.Path, nargs="+")
    parser.add_argument("--tolerance-mm", type=float, default=0.1)
    parser.add_argument("--report", type=pathlib.Path)
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    entries = [check(path, args.out_dir, args.tolerance_mm) for path in args.models]
    text = json.dumps({"files": entries, "with_problems": sum(bool(e["problems"]) for e in entries)}, indent=2)
    if args.report:
        partial = args.report.with_name(args.report.name + ".partial")
        partial.write_text(text + "\n")
        os.replace(partial, args.report)
    else:
        print(text)
    return 1 if any(e["problems"] for e in entries) else 0


if __name__ == "__main__":
    sys.exit(main())
