"""examples/python run as users run them, and their outputs checked against the module's own evaluation."""
import json
import subprocess
import sys

import numpy as np
import pytest

import ossa
from conftest import SAMPLE, SHARED_MODELS, SOURCE

EXAMPLES = SOURCE / "examples" / "python"


def run(script, *args, check=True):
    return subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)], check=check,
                          capture_output=True, text=True)


def test_tour(tmp_path):
    out = run("tour.py", SAMPLE, tmp_path).stdout
    assert "left foot down" in out and "refused:" in out
    assert (tmp_path / "hero.ossa").exists() and (tmp_path / "robot_walk.glb").exists()


def test_dataset_export_writes_what_the_module_evaluates(tmp_path):
    result = run("dataset_export.py", SAMPLE, tmp_path, "--fps", "24", "--trusted")
    assert "6 files, 15 clips" in result.stdout and "0 failed" in result.stdout
    assert "6/6" in result.stderr  # the progress bar
    data = np.load(tmp_path / "ossa_sample__Armature_Walk.npz")
    hero = ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)
    assert data["times"][-1] == pytest.approx(1.0) and len(data["times"]) == 25
    assert np.array_equal(data["positions"], hero.joint_positions("Walk", data["times"]))
    assert np.array_equal(data["local"], hero.local_poses("Walk", data["times"]))
    assert list(data["names"]) == hero.skeleton.names
    assert not list(tmp_path.glob("*partial*"))


def test_dataset_export_of_mocap(tmp_path):
    mocap = SHARED_MODELS.parent / "mocap"
    if not mocap.is_dir():
        pytest.skip(f"{mocap} is absent (a user's clone)")
    result = run("dataset_export.py", mocap, tmp_path)
    files = sorted(mocap.glob("*.bvh"))
    assert f"{len(files)} files, {len(files)} clips" in result.stdout and "0 failed" in result.stdout
    written = sorted(tmp_path.glob("*.npz"))
    assert len(written) == len(files)
    character = ossa.load(files[0])
    data = np.load(written[0])
    assert np.array_equal(data["positions"], character.joint_positions(0, data["times"]))


def test_pipeline_check_reports_as_json(tmp_path):
    broken = tmp_path / "broken.glb"
    broken.write_bytes((SAMPLE / "ossa_sample.glb").read_bytes()[:500])
    report_path = tmp_path / "report.json"
    result = run("pipeline_check.py", tmp_path / "out", SAMPLE / "ossa_sample.fbx", broken, "--report", report_path,
                 check=False)
    assert result.returncode == 1  # the broken file is a problem
    report = json.loads(report_path.read_text())
    good, bad = report["files"]
    assert good["problems"] == [] and good["joints"] == 33 and good["worst_error_mm"] <= 0.1
    assert "broken.glb" in bad["problems"][0] and report["with_problems"] == 1
    assert (tmp_path / "out" / "ossa_sample.ossa").exists()
