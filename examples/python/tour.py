"""A tour of the ossa module: each region below is a snippet of docs/python.md, and this file runs as a test.

    python3 tour.py SAMPLE_DIR OUT_DIR     (SAMPLE_DIR: assets/sample; OUT_DIR: where files may be written)
"""
import pathlib
import sys

import numpy as np

import ossa


def main(sample_dir, out_dir):
    sample_dir, out_dir = pathlib.Path(sample_dir), pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # [snippet load]
    hero = ossa.load(sample_dir / "ossa_sample.fbx")  # FBX, glTF, COLLADA, BVH or .ossa
    print(hero.skeleton.names[:3], hero.skeleton.parents[:3])  # joint names, parents (-1: a root)
    for clip in hero.clips:
        print(clip.name, clip.duration, clip.layout, clip.frame_rate)
    # [/snippet]

    # [snippet evaluate]
    walk = hero.clip("Walk")  # "Walk" finds "Armature|Walk"
    times = walk.frame_times()  # every frame at the clip's rate, the last at its end
    positions = hero.joint_positions(walk, times)  # (T, J, 3) float32, model space
    world = hero.joint_world(walk, times)  # (T, J, 4, 4), world[t, j, :3, 3] == positions[t, j]
    local = hero.local_poses(walk, times)  # (T, J, 10): translation, rotation xyzw, scale
    vertices = hero.skin(walk, [0.0, 0.5])  # {mesh name: (2, V, 3)}, morphed and skinned
    rest = hero.joint_positions(None, 0.0)  # None: the rest pose; a number: no time axis
    # [/snippet]
    assert positions.shape == (len(times), hero.skeleton.joint_count, 3)
    assert np.allclose(world[:, :, :3, 3], positions) and local.shape[-1] == 10 and rest.ndim == 2
    assert set(vertices) == {m.name for m in hero.meshes}

    # [snippet animator]
    animator = ossa.Animator(hero)
    animator.play("Walk")
    for frame in range(90):
        if frame == 45:
            animator.crossfade("Idle", 0.3)
        for event in animator.update(1 / 60):  # notifies fired this update
            if event["name"] == "FootL":
                print(f"left foot down at {event['time']:.2f} s")
        pose = animator.joint_positions  # (J, 3); mesh_palette(m) for a renderer
    # [/snippet]
    assert pose.shape == (hero.skeleton.joint_count, 3)

    # [snippet graph]
    graph = ossa.GraphInstance(hero, sample_dir / "ossa_sample.animgraph.json")
    graph.set("speed", 1.2)  # floats and bools by name; graph.trigger("turn") for triggers
    for _ in range(60):
        for event in graph.update(1 / 60):
            if event["type"] == "state_enter":
                print("entered", event["state"])
    print(graph.current_state(0), graph.joint_positions.shape)
    # [/snippet]

    # [snippet offline]
    report = ossa.convert(sample_dir / "ossa_sample.fbx", out_dir / "hero.ossa", compress=True, tolerance_mm=0.1)
    print(f"{report['raw_clip_bytes']} -> {report['clip_bytes']} bytes, worst {report['worst_error_mm']:.3f} mm")
    robot = ossa.load(sample_dir / "ossa_sample.glb")
    moved = ossa.retarget(hero, robot, clips=["Walk"], contacts=["feet"])  # hero's walk on robot's rig
    ossa.export_gltf(moved, out_dir / "robot_walk.glb")
    # [/snippet]
    assert report["worst_error_mm"] <= 0.1 and (out_dir / "robot_walk.glb").stat().st_size > 0

    # [snippet errors]
    try:
        ossa.load(out_dir / "missing.fbx")
    except ossa.OssaError as error:  # the library's message, naming the file
        print("refused:", error)
    # [/snippet]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
