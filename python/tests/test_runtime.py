"""The Animator and the state machine from Python, against the character's own evaluation."""
import numpy as np
import pytest

import ossa
from conftest import SAMPLE


@pytest.fixture(scope="module")
def sample():
    return ossa.load(SAMPLE / "ossa_sample.fbx", trusted=True)


def test_animator_poses_as_the_clip_evaluates(sample):
    animator = ossa.Animator(sample)
    animator.play("Walk")
    fired = []
    for _ in range(45):  # 1.5 s at 30 updates a second: the Walk (1 s) loops once
        fired += animator.update(1 / 30)
    time = animator.time
    assert time == pytest.approx(0.5, abs=1e-4) and animator.loops == 1
    expected = sample.joint_positions("Walk", time)
    assert np.abs(animator.joint_positions - expected).max() <= 1e-5
    assert np.abs(animator.joint_world[:, :3, 3] - expected).max() <= 1e-5
    names = [(e["type"], e["name"]) for e in fired]
    assert names.count(("instant", "FootL")) == 2 and names.count(("instant", "FootR")) == 2
    assert ("loop", None) in names
    foot = next(e for e in fired if e["name"] == "FootL" and e["loop"] == 1)
    assert '"sound":"step_grass"' in foot["payload"]


def test_animator_crossfades_layers_and_palettes(sample):
    animator = ossa.Animator(sample)
    animator.play("Idle")
    animator.update(0.2)
    animator.crossfade("Walk", 0.3)
    animator.update(0.15)
    idle, walk = sample.joint_positions("Idle", 0.35), sample.joint_positions("Walk", 0.15)
    mid = animator.joint_positions
    assert np.abs(mid - idle).max() > 1e-4 and np.abs(mid - walk).max() > 1e-4  # between the two
    mask = np.zeros(sample.skeleton.joint_count, dtype=np.float32)
    mask[sample.skeleton.find("spine_02"):] = 1
    layer = animator.add_layer("Wave", 1.0, mask=mask)
    animator.update(0.5)
    assert layer == 0 and animator.clip == sample.clip("Walk").index
    for m, mesh in enumerate(sample.meshes):
        palette = animator.mesh_palette(m)
        assert palette.shape[1:] == (4, 4) and np.isfinite(palette).all()
    with pytest.raises(KeyError):
        animator.play("Swim")
    with pytest.raises(ValueError):
        animator.update(float("inf"))


def test_inertialization_is_continuous(sample):
    animator = ossa.Animator(sample)
    animator.play("Idle")
    animator.update(1 / 60)
    before = animator.joint_positions
    animator.inertialize("Walk", 0.3)
    animator.update(1 / 60)
    after = animator.joint_positions
    jump = np.abs(sample.joint_positions("Walk", 1 / 60) - before).max()
    assert np.abs(after - before).max() < 0.5 * jump  # no pop: the pose starts from the one shown


def test_graph_instance_drives_states(sample):
    graph = ossa.GraphInstance(sample, str(SAMPLE / "ossa_sample.animgraph.json"))
    assert set(graph.parameters) == {"speed", "turn", "wave", "wave_weight"}
    assert graph.current_state(0) == "Locomotion"
    graph.set("wave", True)
    entered = []
    for _ in range(30):
        entered += [e["state"] for e in graph.update(1 / 30) if e["type"] == "state_enter"]
    assert "Waving" in entered and graph.current_state(1) == "Waving"
    graph.trigger("turn")
    for _ in range(3):
        graph.update(1 / 30)
    assert graph.current_state(0) == "Turn"
    assert graph.joint_positions.shape == (sample.skeleton.joint_count, 3)
    with pytest.raises(KeyError):
        graph.set("jump", 1.0)
    with pytest.raises(ossa.OssaError, match="no animation graph"):
        ossa.GraphInstance(sample)
