"""Evaluating every clip of the real files into arrays: the ossa module against `ossa eval` per file and
against Blender running the oracle script (where Blender is installed).

    PYTHONPATH=build/release/python python3 bench/python-eval.py [--cli build/release/ossa]
                                                                 [--blender-script ../shared/oracle/blender_eval.py]

Per file of ../shared/models (and the sample): the module's load (guarded import) plus every clip's joint
positions at 0, 25, 50 and 75 % of its duration (the oracle's times), then the same at every frame at 60 fps;
`ossa eval --json` once per clip at the oracle's times (a process each, as a pipeline that shells out does);
Blender: `blender -b --factory-startup --python blender_eval.py -- FILE OUT.json --max-verts 0`, all clips at the
same fractions, once per file. Times are wall clock, best of 3 (Blender: 1 run). Prints a Markdown table.
"""
import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import ossa

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODELS = ROOT.parent / "shared" / "models"
FILES = ["huesitos.fbx", "animation_with_skeleton.fbx", "blender_279_sausage_7400_binary.fbx",
         "maya_game_sausage_7500_binary_combined.fbx", "Fox.glb", "CesiumMan.glb", "SimpleSkin.gltf",
         "RobotExpressive.glb"]


def best_of(n, work):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def module_run(path, every_frame):
    character = ossa.load(path)
    frames = 0
    for clip in character.clips:
        times = clip.frame_times(60) if every_frame else [f * clip.duration for f in (0, 0.25, 0.5, 0.75)]
        frames += len(character.joint_positions(clip, times))
    return len(character.clips), frames


def cli_run(cli, path, clips):
    for c in range(clips):
        subprocess.run([cli, "eval", str(path), "--clip", str(c), "--json"], check=True, capture_output=True)


def blender_run(script, path):
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["blender", "-b", "--factory-startup", "--python", str(script), "--", str(path),
                        str(pathlib.Path(scratch) / "out.json"), "--max-verts", "0"], check=True,
                       capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "release" / "ossa"))
    parser.add_argument("--blender-script", default=str(ROOT.parent / "shared" / "oracle" / "blender_eval.py"))
    args = parser.parse_args()
    blender = shutil.which("blender") and pathlib.Path(args.blender_script).exists()
    paths = [ROOT / "assets" / "sample" / "ossa_sample.fbx"] + [MODELS / f for f in FILES if (MODELS / f).exists()]
    print("| file | clips | module: 4 times a clip | module: every frame at 60 fps (frames) | `ossa eval` per clip "
          "| Blender oracle |")
    print("|---|---|---|---|---|---|")
    totals = [0.0, 0.0, 0.0, 0.0]
    for path in paths:
        t_module, (clips, _) = best_of(3, lambda: module_run(path, False))
        t_frames, (_, frames) = best_of(3, lambda: module_run(path, True))
        t_cli, _ = best_of(3, lambda: cli_run(args.cli, path, clips))
        t_blender = best_of(1, lambda: blender_run(args.blender_script, path))[0] if blender else None
        totals = [a + (b or 0) for a, b in zip(totals, (t_module, t_frames, t_cli, t_blender))]
        print(f"| {path.name} | {clips} | {t_module * 1e3:.1f} ms | {t_frames * 1e3:.1f} ms ({frames}) | "
              f"{t_cli * 1e3:.1f} ms | {f'{t_blender:.2f} s' if t_blender else 'not installed'} |")
    print(f"| all | | {totals[0] * 1e3:.1f} ms | {totals[1] * 1e3:.1f} ms | {totals[2] * 1e3:.1f} ms | "
          f"{f'{totals[3]:.1f} s' if blender else '-'} |")


if __name__ == "__main__":
    sys.exit(main())
