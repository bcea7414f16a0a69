"""Shared fixtures: the bundled sample, ../shared/models when present, the ossa CLI, a scratch folder.

The suite runs from ctest (Python.pytest) with PYTHONPATH naming the built package and OSSA_CLI the built
`ossa`; the tests write only under pytest's tmp_path (inside the build tree: --basetemp).
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import ossa

SOURCE = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = SOURCE / "assets" / "sample"
SHARED_MODELS = SOURCE.parent / "shared" / "models"


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("OSSA_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("OSSA_CLI does not name the built ossa program")
    return path


def run_eval(cli, path, clip, times, vertices=False, extra=()):
    """`ossa eval --json`: {'rest', 'bind', 'samples'} with joints and meshes as lists in file order."""
    args = [cli, "--trusted", "eval", str(path), "--clip", str(clip), "--json",
            "--time", ",".join(repr(float(t)) for t in times), *extra]
    if vertices:
        args.append("--vertices")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out, object_pairs_hook=list)  # names may repeat: keep every member, in order


def members(pairs, key):
    return next(v for k, v in pairs if k == key)


def joints_array(pairs):
    """The `joints` member of an eval sample as (J, 3)."""
    return np.array([v for _, v in members(pairs, "joints")], dtype=np.float64)


def model_size(positions):
    """The diagonal of the joints' bounding box over every time: tolerances scale with it."""
    flat = np.asarray(positions).reshape(-1, 3)
    return float(np.linalg.norm(flat.max(axis=0) - flat.min(axis=0))) or 1.0


def shared_models():
    """The real files of ../shared/models that hold clips (skips, visibly, where the folder is absent)."""
    if not SHARED_MODELS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{SHARED_MODELS} is absent (a user's clone)"))]
    names = ["huesitos.fbx", "animation_with_skeleton.fbx", "blender_279_sausage_7400_binary.fbx",
             "maya_game_sausage_7500_binary_combined.fbx", "maya_game_sausage_7500_ascii_combined.fbx",
             "Fox.glb", "CesiumMan.glb", "SimpleSkin.gltf", "RobotExpressive.glb",
             "morph/AnimatedMorphCube.gltf"]
    return [pytest.param(SHARED_MODELS / n, id=n) for n in names if (SHARED_MODELS / n).exists()]
