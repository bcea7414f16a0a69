"""Evaluation against the CLI's `ossa eval --json` (itself checked against Blender), same numbers.

Two routes, each compared with the one the CLI takes for the same input:
* a model file loaded with layout='keyed' (the file's keys, slerped at the runtime) against `ossa eval` on the
  model file (the reference evaluator, straight from the imported keys): agreement to float precision,
  1e-5 of the model's size;
* a .ossa file (fixed-rate frames) against `ossa eval` on that .ossa (the same runtime jobs): agreement to the
  CLI's 7 printed digits.
"""
import numpy as np
import pytest

import ossa
from conftest import SAMPLE, joints_array, members, model_size, run_eval, shared_models


def compare_joints(character, clip, times, evaluated, tolerance):
    positions = character.joint_positions(clip, times)
    size = model_size(positions)
    for t, sample in enumerate(members(evaluated, "samples")):
        expected = joints_array(sample)
        assert expected.shape == positions[t].shape
        error = np.abs(positions[t] - expected).max()
        assert error <= tolerance * size, f"clip {clip} at {times[t]} s: {error / size:.2e} of the model's size"
    rest = character.joint_positions(None, 0.0)
    assert np.abs(rest - joints_array(members(evaluated, "rest"))).max() <= tolerance * size


@pytest.mark.parametrize("name", ["ossa_sample.fbx", "ossa_sample.glb", "ossa_sample.dae"])
def test_sample_keys_match_ossa_eval(cli, name):
    character = ossa.load(SAMPLE / name, trusted=True, layout="keyed")
    for clip in character.clips:
        times = np.linspace(0, clip.duration, 7)
        compare_joints(character, clip.index, times, run_eval(cli, SAMPLE / name, clip.index, times), 1e-5)


@pytest.mark.parametrize("path", shared_models())
def test_real_files_match_ossa_eval(cli, path):
    character = ossa.load(path, layout="keyed")
    assert character.clips, f"{path.name}: no clips"
    for clip in character.clips:
        times = np.linspace(0, clip.duration, 5)
        compare_joints(character, clip.index, times, run_eval(cli, path, clip.index, times), 1e-5)


def test_skinned_vertices_match_ossa_eval(cli, tmp_path):
    ossa.convert(SAMPLE / "ossa_sample.fbx", tmp_path / "sample.ossa", trusted=True, compress=True)
    character = ossa.load(tmp_path / "sample.ossa")
    times = [0.0, 0.37, 0.9]
    evaluated = run_eval(cli, tmp_path / "sample.ossa", "Walk", times, vertices=True)
    skinned = character.skin("Walk", times)
    assert list(skinned) == [name for name, _ in members(members(evaluated, "samples")[0], "meshes")]
    size = model_size(character.joint_positions("Walk", times))
    for t, sample in enumerate(members(evaluated, "samples")):
        for name, vertices in members(sample, "meshes"):
            error = np.abs(skinned[name][t] - np.array(vertices)).max()
            assert error <= 1e-6 * size + 1e-6, f"{name} at {times[t]} s: {error}"
    # The rest pose's meshes and the bind pose's joints, as the CLI gives them.
    rest = character.skin(None, 0.0)
    for name, vertices in members(members(evaluated, "rest"), "meshes"):
        assert np.abs(rest[name] - np.array(vertices)).max() <= 1e-6 * size + 1e-6


def test_ossa_file_matches_ossa_eval_to_its_printed_digits(cli, tmp_path):
    ossa.convert(SAMPLE / "ossa_sample.glb", tmp_path / "fixed.ossa", trusted=True)
    character = ossa.load(tmp_path / "fixed.ossa")
    for clip in character.clips:
        times = clip.frame_times()[::5]
        compare_joints(character, clip.index, times, run_eval(cli, tmp_path / "fixed.ossa", clip.index, times), 1e-6)


def test_morph_weights_reach_the_vertices(cli):
    path = SAMPLE / "ossa_face.glb"
    character = ossa.load(path, trusted=True, layout="keyed")
    clip = character.clips[0]
    times = np.linspace(0, clip.duration, 4)
    evaluated = run_eval(cli, path, clip.index, times, vertices=True)
    skinned = character.skin(clip.index, times)
    moved = False
    for t, sample in enumerate(members(evaluated, "samples")):
        for (name, vertices), key in zip(members(sample, "meshes"), skinned):
            expected = np.array(vertices)
            assert np.abs(skinned[key][t] - expected).max() <= 1e-5
            moved |= bool(np.abs(skinned[key][t] - skinned[key][0]).max() > 1e-3)
    assert moved, "the face's clip moves no vertex: the test would not see morph weights"
