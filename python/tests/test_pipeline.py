"""Conversion, glTF export and retargeting from Python: the library's own calls, checked by what they make."""
import json
import pathlib

import numpy as np
import pytest

import ossa
from conftest import SAMPLE, SHARED_MODELS, model_size


def test_convert_compresses_within_its_bound(tmp_path):
    out = tmp_path / "walk.ossa"
    report = ossa.convert(SAMPLE / "ossa_sample.fbx", out, trusted=True, clips=["Walk", "Idle"], compress=True,
                          tolerance_mm=0.1)
    assert [c["name"] for c in report["clips"]] == ["Armature|Walk", "Armature|Idle"]
    assert report["worst_error_mm"] <= 0.1 and report["clip_bytes"] < report["raw_clip_bytes"]
    assert str(SAMPLE / "ossa_sample.notifies.json") in report["inputs"]
    compressed = ossa.load(out)
    assert [c.layout for c in compressed.clips] == ["quantized", "quantized"]
    assert "Armature|Walk" in compressed.notifies  # the sidecar, embedded (the other clips' left out)
    assert "Armature|Wave" not in compressed.notifies
    fixed = ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)
    times = np.linspace(0, 1, 31)
    error = np.abs(compressed.joint_positions("Walk", times) - fixed.joint_positions("Walk", times)).max()
    assert error <= 0.1e-3  # joints sit within the virtual vertices' bound
    model = tmp_path / "model.glb"
    model.write_bytes((SAMPLE / "ossa_sample.glb").read_bytes())
    with pytest.raises(ossa.OssaError, match="it is an input"):
        ossa.convert(model, model, trusted=True)  # never over an input
    assert model.read_bytes() == (SAMPLE / "ossa_sample.glb").read_bytes()
    with pytest.raises(ossa.OssaError, match="no clip 'Swim'"):
        ossa.convert(SAMPLE / "ossa_sample.fbx", tmp_path / "x.ossa", trusted=True, clips=["Swim"])
    assert not (tmp_path / "x.ossa").exists()


def test_gltf_export_reads_back_alike(tmp_path):
    character = ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True, layout="keyed")
    report = ossa.export_gltf(character, tmp_path / "sample.glb")
    assert report["files"][0][1] == (tmp_path / "sample.glb").stat().st_size
    again = ossa.load(tmp_path / "sample.glb", trusted=True, layout="keyed")
    assert [c.name.split("|")[-1] for c in again.clips] == [c.name.split("|")[-1] for c in character.clips]
    for clip in character.clips:
        times = np.linspace(0, clip.duration, 9)
        a, b = character.joint_positions(clip, times), again.joint_positions(clip.name.split("|")[-1], times)
        assert np.abs(a - b).max() <= 1e-5 * model_size(a)


def test_retarget_onto_a_copy_of_itself_keeps_the_motion():
    source = ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)
    target = ossa.load(SAMPLE / "ossa_sample.glb", trusted=True)
    moved = ossa.retarget(source, target, clips=["Walk"], contacts=["feet"])
    assert [c.name for c in moved.clips] == ["Armature|Walk"]
    assert moved.skeleton.names == target.skeleton.names
    assert "Armature|Walk" in moved.notifies
    times = np.linspace(0, 1, 11)
    a, b = moved.joint_positions(0, times), source.joint_positions("Walk", times)
    shared = [n for n in target.skeleton.names if n in source.skeleton.names]
    assert len(shared) >= 30
    a = a[:, [target.skeleton.names.index(n) for n in shared]]
    b = b[:, [source.skeleton.names.index(n) for n in shared]]
    assert np.abs(a - b).max() <= 1e-3 * model_size(b)


def test_retarget_onto_another_rig():
    path = SHARED_MODELS / "RobotExpressive.glb"
    if not path.exists():
        pytest.skip(f"{path} is absent (a user's clone)")
    source = ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)
    robot = ossa.load(path)
    mapped = ossa.retarget(source, robot, clips=["Walk"])
    positions = mapped.joint_positions(0, np.linspace(0, 1, 5))
    assert positions.shape == (5, robot.skeleton.joint_count, 3) and np.isfinite(positions).all()
    assert np.abs(positions[2] - positions[0]).max() > 1e-3 * model_size(positions)  # it walks
    with pytest.raises(ossa.OssaError, match="NoSuchBone"):
        ossa.retarget(source, robot, map={"NoSuchBone": "pelvis"})
    with pytest.raises(ossa.OssaError, match="NoSuchBone"):
        ossa.retarget(source, robot, map=json.dumps({"NoSuchBone": "pelvis"}))


def test_convert_to_gltf_by_the_outputs_extension(tmp_path):
    report = ossa.convert(SAMPLE / "ossa_sample.fbx", tmp_path / "walk.glb", trusted=True, clips=["Walk"],
                          compress=True)
    assert report["files"] == [str(tmp_path / "walk.glb")] and report["bytes_out"] == (tmp_path / "walk.glb").stat().st_size
    assert report["joint_keys"] < report["joint_keys_full"] and report["worst_error_mm"] <= 0.1
    # assimp cannot read the compressed file's KHR_mesh_quantization: the uncompressed export is read back.
    ossa.convert(SAMPLE / "ossa_sample.fbx", tmp_path / "walk.glb", trusted=True, clips=["Walk"])
    exported = ossa.load(tmp_path / "walk.glb", trusted=True, layout="keyed")
    source = ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True, layout="keyed")
    assert [c.name for c in exported.clips] == ["Armature|Walk"]
    times = np.linspace(0, 1, 13)
    error = np.abs(exported.joint_positions(0, times) - source.joint_positions("Walk", times)).max()
    assert error <= 1e-5 * model_size(source.joint_positions("Walk", times))
    report = ossa.convert(SAMPLE / "ossa_sample.glb", tmp_path / "split.gltf", trusted=True)
    assert [pathlib.Path(f).suffix for f in report["files"]][:2] == [".gltf", ".bin"]
    with pytest.raises(ossa.OssaError, match="right-handed"):
        ossa.convert(SAMPLE / "ossa_sample.fbx", tmp_path / "x.glb", trusted=True, left_handed=True)
