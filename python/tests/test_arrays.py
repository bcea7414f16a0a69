"""Shapes, dtypes, views and ownership, the pose's own consistency, threads, and errors."""
import gc
import threading

import numpy as np
import pytest

import ossa
from conftest import SAMPLE


@pytest.fixture(scope="module")
def sample():
    return ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)


def test_shapes_and_dtypes(sample):
    joints = sample.skeleton.joint_count
    walk = sample.clip("Walk")
    times = walk.frame_times()
    assert times[0] == 0 and times[-1] == pytest.approx(walk.duration)
    assert sample.joint_world(walk, times).shape == (len(times), joints, 4, 4)
    assert sample.joint_positions(walk, times).shape == (len(times), joints, 3)
    assert sample.local_poses(walk, times).shape == (len(times), joints, 10)
    assert sample.joint_positions(walk, 0.5).shape == (joints, 3)  # a number: no time axis
    for array in (sample.joint_world(walk, times), sample.local_poses(walk, [0.1])):
        assert array.dtype == np.float32 and array.flags.c_contiguous
    skinned = sample.skin(walk, [0.0, 0.5])
    assert [m.name for m in sample.meshes] == list(skinned)
    for mesh in sample.meshes:
        assert skinned[mesh.name].shape == (2, mesh.vertex_count, 3)
        assert mesh.positions.shape == (mesh.vertex_count, 3) and mesh.positions.dtype == np.float32
        assert mesh.triangles.max() < mesh.vertex_count
        assert np.allclose(mesh.weights.sum(axis=1), 1, atol=1e-5)
        assert mesh.joints.max() < joints
    assert sample.skeleton.parents.dtype == np.int32
    assert all(sample.skeleton.parents[j] < j for j in range(joints))


def test_world_matrices_are_the_locals_composed(sample):
    """An independent composition in numpy (T * R * S down the parents) gives the joints' world matrices."""
    def matrix(local):
        t, (x, y, z, w), s = local[:3], local[3:7], local[7:]
        rotation = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                             [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                             [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        m = np.eye(4)
        m[:3, :3] = rotation * s
        m[:3, 3] = t
        return m

    parents = sample.skeleton.parents
    for clip in sample.clips:
        locals_ = sample.local_poses(clip, 0.3 * clip.duration).astype(np.float64)
        world = sample.joint_world(clip, 0.3 * clip.duration)
        composed = []
        for j, local in enumerate(locals_):
            m = matrix(local)
            composed.append(m if parents[j] < 0 else composed[parents[j]] @ m)
        size = np.ptp(world[:, :3, 3], axis=0).max()
        assert np.abs(np.array(composed) - world).max() <= 1e-5 * max(size, 1)


def test_rest_pose_is_the_skeletons(sample):
    assert np.allclose(sample.local_poses(None, 0.0), sample.skeleton.rest_local, atol=1e-7)


def test_views_are_read_only_and_keep_the_character_alive():
    character = ossa.load(SAMPLE / "ossa_sample.glb", trusted=True)
    positions = character.meshes[0].positions
    parents = character.skeleton.parents
    expected = positions.copy()
    with pytest.raises(ValueError):
        positions[0, 0] = 1.0
    assert not positions.flags.owndata  # a view of Ossa's memory, no copy
    evaluated = character.joint_positions(0, [0.1, 0.2])
    del character
    gc.collect()
    ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)  # reuses freed memory, were it freed
    assert np.array_equal(positions, expected)
    assert parents[0] == -1 and evaluated.flags.owndata


def test_threads_evaluate_alike(sample):
    """Evaluation releases the GIL: six threads at once give the arrays one thread gives."""
    times = np.linspace(0, 1, 240)
    expected = {c.name: sample.joint_world(c, times) for c in sample.clips}
    skinned = sample.skin("Walk", times[:20])
    results, failures = [], []

    def work():
        try:
            for _ in range(3):
                for clip in sample.clips:
                    results.append(np.array_equal(sample.joint_world(clip, times), expected[clip.name]))
                got = sample.skin("Walk", times[:20])
                results.append(all(np.array_equal(got[k], skinned[k]) for k in skinned))
        except Exception as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and len(results) == 6 * 3 * (len(sample.clips) + 1) and all(results)


def test_errors_are_exceptions_with_ossas_messages(tmp_path, sample):
    with pytest.raises(ossa.OssaError, match="no_such_file.fbx"):
        ossa.load(tmp_path / "no_such_file.fbx")
    broken = tmp_path / "broken.glb"
    broken.write_bytes((SAMPLE / "ossa_sample.glb").read_bytes()[:300])
    with pytest.raises(ossa.OssaError, match="broken.glb"):
        ossa.load(broken)  # guarded: the worker's refusal, this process unharmed
    with pytest.raises(KeyError, match="Swim"):
        sample.joint_positions("Swim", 0.0)
    with pytest.raises(IndexError):
        sample.joint_positions(99, 0.0)
    with pytest.raises(ValueError, match="finite"):
        sample.joint_positions("Walk", [0.0, float("nan")])
    with pytest.raises(ValueError):
        sample.joint_positions("Walk", [[0.0, 1.0]])
    with pytest.raises(ValueError, match="layout"):
        ossa.load(SAMPLE / "ossa_sample.fbx", layout="compressed")
    assert issubclass(ossa.OssaError, RuntimeError)


def test_names_from_files_never_fail_to_decode(tmp_path):
    """A name that is not UTF-8 comes back with surrogates (os.fsdecode's rule), not an exception, and finds its
    joint again."""
    text = (SAMPLE.parent.parent / "tests" / "bvh" / "centimetres.bvh").read_bytes()
    assert b"JOINT Head" in text
    odd = tmp_path / "odd.bvh"
    odd.write_bytes(text.replace(b"JOINT Head", b"JOINT Sp\xffine", 1))
    character = ossa.load(odd, trusted=True)
    names = character.skeleton.names
    assert "Sp\udcffine" in names
    assert character.skeleton.find("Sp\udcffine") == names.index("Sp\udcffine")
